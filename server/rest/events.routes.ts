// REST: the event feed's stream (SPEC §10), GET /events/stream (Server-Sent Events): no request and answer,
// so written by hand. Its pages, GET /events (long poll included), come from the operation registry.
import { Router, type Request, type Response } from 'express';
import type { Deps } from '../application/context.js';
import { followedEvent, MAX_STREAM_BUFFERED_BYTES, prepareFollow } from '../application/events/events.js';
import { feedHub, type FeedEvent, type Following } from '../application/events/feed-hub.js';
import { openStreamGuard } from '../application/events/stream-guard.js';
import { OPERATION_PERMISSIONS } from '../application/permission-table.js';
import { restCtx } from './handle.js';
import { sendProblem } from './problem.js';

/** An event's SSE frame, written once per event and sent to every subscriber it matches. */
const frames = new WeakMap<FeedEvent, string>();
function sseFrame(deps: Deps, e: FeedEvent): string {
  let frame = frames.get(e);
  if (frame === undefined) {
    const { cursor, event } = followedEvent(deps, e);
    frame = `id: ${cursor}\nevent: ${e.type}\ndata: ${JSON.stringify(event)}\n\n`;
    frames.set(e, frame);
  }
  return frame;
}

/**
 * A batch's frames as one buffer, made once per batch: the hub hands the same batch array to every
 * follower that takes all of it, so 100 subscribers cost one encoding and 100 writes of the same bytes.
 */
const batches = new WeakMap<readonly FeedEvent[], Buffer>();
function sseChunk(deps: Deps, events: readonly FeedEvent[]): Buffer {
  let chunk = batches.get(events);
  if (chunk === undefined) {
    chunk = Buffer.from(events.map((e) => sseFrame(deps, e)).join(''));
    batches.set(events, chunk);
  }
  return chunk;
}

export function eventsRoutes(deps: Deps): Router {
  const router = Router();
  router.get('/events/stream', (req, res, next) => void stream(deps, req, res).catch(next));
  return router;
}

async function stream(deps: Deps, req: Request, res: Response): Promise<void> {
  const lastEventId = req.get('last-event-id');
  const input = { ...req.query, ...(lastEventId ? { after: lastEventId } : {}) };
  const ctx = restCtx(req);
  const follow = await prepareFollow(deps, ctx, input);
  if (!follow.ok) return sendProblem(res, follow, req.requestId);
  // the client may have gone while the input was checked: its close has fired already
  if (res.destroyed || req.socket.destroyed) return;

  let open = true;
  // set once the guard is open; `end` may run before (a refusal never follows)
  let following: Following | undefined = undefined;
  /** `drop`: the client stopped reading; dropping the connection frees what waits for it */
  const end = (how: 'end' | 'drop' = 'end', why?: string) => {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    following?.stop();
    if (guard.ok) guard.value.close();
    res.removeListener('close', closed);
    if (how === 'drop') res.destroy();
    else {
      if (why && !res.writableEnded) res.write(`: closed: ${why}\n\n`);
      res.end();
    }
  };
  const closed = () => end();
  // SPEC §10: the stream follows the caller's rights; SPEC §7: it counts against the user's streams.
  const guard = openStreamGuard(deps, ctx.caller, {
    needs: [OPERATION_PERMISSIONS['events.list']],
    deliver(events) {
      if (!open) return;
      res.write(sseChunk(deps, events));
      // SPEC §7: a client that stops reading is dropped once 1 MB waits for it; it resumes with Last-Event-ID
      if (res.writableLength > MAX_STREAM_BUFFERED_BYTES) end('drop');
    },
    revoked: (refusal) => end('end', refusal.code),
    overflow: () => end('drop'),
  });
  if (!guard.ok) return sendProblem(res, guard, req.requestId);

  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  // no-transform: no compression layer may buffer the stream
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  res.write(': connected\n\n');

  const heartbeat = setInterval(() => {
    res.write(': heartbeat\n\n');
    if (res.writableLength > MAX_STREAM_BUFFERED_BYTES) end('drop');
  }, deps.config.feedHeartbeatMs);
  // the response's close (the client went, or the stream ended), never a listener on the shared socket
  res.once('close', closed);
  following = feedHub(deps).follow({
    after: follow.value.after,
    filter: follow.value.filter,
    onEvents: (events) => guard.value.push(events),
    onEnd: () => end(),
  });
}
