// REST: the event feed (SPEC §10): GET /events (pages, long poll) and GET /events/stream (Server-Sent Events).
import { Router, type Request, type Response } from 'express';
import type { Deps } from '../application/context.js';
import { followedEvent, listEvents, prepareFollow } from '../application/events/events.js';
import { feedHub, type FeedEvent } from '../application/events/feed-hub.js';
import { handle, restCtx } from './handle.js';
import { sendProblem } from './problem.js';

/** A subscriber this far behind (bytes not yet taken by its socket) is ended; it resumes with Last-Event-ID. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

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
  router.get(
    '/events',
    handle(deps, (d, ctx, req) => {
      const aborted = new AbortController();
      req.socket.once('close', () => aborted.abort());
      return listEvents(d, ctx, req.query, aborted.signal);
    }),
  );
  router.get('/events/stream', (req, res, next) => void stream(deps, req, res).catch(next));
  return router;
}

async function stream(deps: Deps, req: Request, res: Response): Promise<void> {
  const lastEventId = req.get('last-event-id');
  const input = { ...req.query, ...(lastEventId ? { after: lastEventId } : {}) };
  const follow = await prepareFollow(deps, restCtx(req), input);
  if (!follow.ok) return sendProblem(res, follow, req.requestId);

  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  // no-transform: no compression layer may buffer the stream
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  res.write(': connected\n\n');

  let open = true;
  const end = () => {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    following.stop();
    res.end();
  };
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), deps.config.feedHeartbeatMs);
  const following = feedHub(deps).follow({
    after: follow.value.after,
    filter: follow.value.filter,
    onEvents(events) {
      if (!open) return;
      res.write(sseChunk(deps, events));
      if (res.writableLength > MAX_BUFFERED_BYTES) end();
    },
    onEnd: end,
  });
  req.socket.once('close', end);
  res.once('close', end);
}
