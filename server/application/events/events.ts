// The event feed (SPEC §10): every committed event in feed order, paged by opaque signed cursors, with an
// optional long poll (`wait`) woken by the instance's feed hub. Permission `events:read`.
import { z } from 'zod';
import { ok, validationFailed, type Refusal, type Result } from '../../domain/errors.js';
import { TENSION_EVENT_TYPES } from '../../domain/tension.types.js';
import { FEED_START, feedHead, readFeed, type FeedCursor, type FeedFilter, type StoredEvent } from '../../persistence/event-store.js';
import { authorize } from '../authorize.js';
import { OPERATION_PERMISSIONS } from '../permission-table.js';
import type { Ctx, Deps } from '../context.js';
import { cursorParam, decodeCursor, encodeCursor, limitParam } from '../paging.js';
import { uuidSchema } from '../schemas.js';
import { parseInput } from '../validate.js';
import { feedHub, type FeedEvent } from './feed-hub.js';
import { openStreamGuard } from './stream-guard.js';

/** Every event type the service writes: `types` must name some of these. */
export const KNOWN_EVENT_TYPES: readonly string[] = [...TENSION_EVENT_TYPES];

export const FEED_LIMIT_MAX = 1000;
export const FEED_WAIT_MAX_SECONDS = 30;

const blankToUndefined = (v: unknown) => (v === null || v === '' ? undefined : v);
const XID8_MAX = 18446744073709551615n;

/** A cursor's key: the writing transaction's id (xid8 as decimal text) and the position. */
export const feedCursorKey = z.strictObject({
  // one refinement: zod runs every check of a schema, so BigInt must never see text the pattern refused
  t: z.string().refine((s) => /^(0|[1-9]\d{0,19})$/.test(s) && BigInt(s) <= XID8_MAX),
  p: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
});

const typesSchema = z.preprocess(
  (v) => {
    const b = blankToUndefined(v);
    if (typeof b === 'string')
      return b
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    return b;
  },
  z
    .array(
      z
        .string()
        .refine((t) => KNOWN_EVENT_TYPES.includes(t), { message: `must be one of ${KNOWN_EVENT_TYPES.join(', ')}` })
        .meta({ enum: [...KNOWN_EVENT_TYPES] }),
    )
    .max(KNOWN_EVENT_TYPES.length * 2)
    .optional(),
);

/** The filters and start point every face takes (REST, SSE, GraphQL, MCP). */
export const feedFollowQuery = z.object({
  after: z
    .preprocess(blankToUndefined, cursorParam.optional())
    .describe("Start after this cursor (a page's nextCursor, an event's SSE id), or `now` for only what comes next; omitted: from the first event."),
  types: typesSchema.describe(`Only these event types (comma-separated, or the parameter repeated): ${KNOWN_EVENT_TYPES.join(', ')}.`),
  streamId: z.preprocess(blankToUndefined, uuidSchema.optional()).describe("Only this stream's events (a tension id)."),
});

export const listEventsQuery = feedFollowQuery.extend({
  limit: limitParam(FEED_LIMIT_MAX, 100, `At most this many events, 1-${FEED_LIMIT_MAX}; 100 when omitted.`),
  wait: z
    .preprocess(blankToUndefined, z.coerce.number().int().min(0).max(FEED_WAIT_MAX_SECONDS).default(0))
    .describe(
      `Long poll: when there is nothing after the cursor, wait up to this many seconds (0-${FEED_WAIT_MAX_SECONDS}) for the next commit; 0 answers at once.`,
    ),
});

/** An event as the feed shows it, as a schema (the OpenAPI document, the MCP tool's output, the GraphQL type's descriptions). */
export const feedEventOutput = z
  .object({
    position: z.number().int().describe('Global position; increasing, gaps allowed.'),
    id: z.string().describe('The event id (a UUID; also the NATS Nats-Msg-Id).'),
    streamType: z.string().describe("The stream's type (`tension`)."),
    streamId: z.string().describe('The stream id: the tension id (a UUID).'),
    version: z.number().int().describe('1-based version within the stream.'),
    type: z.string().describe('The event type, e.g. `TensionRescored`.'),
    schemaVersion: z.number().int().describe("The version of the event's data shape."),
    data: z.record(z.string(), z.unknown()).describe('The event data (SPEC §3).'),
    metadata: z.record(z.string(), z.unknown()).describe('Who acted, through which face, with which request (SPEC §2, without apiKeyId).'),
    occurredAt: z.string().describe('When it happened (ISO 8601).'),
  })
  .describe('A committed event as the feed shows it.');

export const feedPageOutput = z.object({
  data: z.array(feedEventOutput).describe('Events, oldest first.'),
  nextCursor: z.string().describe('Where to resume (pass as `after`); always present, also when data is empty.'),
});

/** An event as the feed shows it: the stored event, its metadata without `apiKeyId` (SPEC §10), its time as ISO 8601. */
export type FeedEventView = Omit<StoredEvent, 'metadata' | 'occurredAt'> & { metadata: Record<string, unknown>; occurredAt: string };

export interface FeedPageView {
  data: FeedEventView[];
  nextCursor: string;
}

export function toFeedEventView(e: StoredEvent): FeedEventView {
  const { apiKeyId: _hidden, ...metadata } = e.metadata;
  return {
    position: e.position,
    id: e.id,
    streamType: e.streamType,
    streamId: e.streamId,
    version: e.version,
    type: e.type,
    schemaVersion: e.schemaVersion,
    data: e.data,
    metadata,
    occurredAt: e.occurredAt.toISOString(),
  };
}

export function encodeFeedCursor(deps: Pick<Deps, 'sessionSecret'>, c: FeedCursor): string {
  return encodeCursor(deps, 'events', { t: c.transactionId, p: c.position });
}

/** `after` as a feed cursor: absent = the start, `now` = the last visible event, else a cursor this feed issued. */
export async function resolveAfter(deps: Deps, after: string | undefined): Promise<Result<FeedCursor>> {
  if (after === undefined) return ok(FEED_START);
  if (after === 'now') return ok(await feedHead(deps.orm.em.fork()));
  const key = decodeCursor(deps, 'events', after, feedCursorKey);
  if (!key.ok)
    return validationFailed(
      [{ path: 'after', message: 'is not a cursor this feed issued (or now)', code: 'invalid_format', params: { format: 'cursor' } }],
      'The cursor is not one this feed issued; start again without it, or with now.',
    );
  return ok({ transactionId: key.value.t, position: key.value.p });
}

export interface FeedFollow {
  after: FeedCursor;
  filter: FeedFilter;
}

/** Validates a follower's input (`after`, `types`, `streamId`) for SSE and subscriptions. */
export async function prepareFollow(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<FeedFollow>> {
  const denied = authorize(ctx, 'events.list');
  if (denied) return denied;
  const parsed = parseInput(feedFollowQuery, input);
  if (!parsed.ok) return parsed;
  const after = await resolveAfter(deps, parsed.value.after);
  if (!after.ok) return after;
  return ok({ after: after.value, filter: { types: parsed.value.types, streamId: parsed.value.streamId } });
}

/** Waits (without a database connection) until the hub sees an event for this filter after `after`, or the time is up. */
function waitForEvents(deps: Deps, after: FeedCursor, filter: FeedFilter, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      following.stop();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const following = feedHub(deps).follow({ after, filter, onEvents: done, onEnd: done });
    signal.addEventListener('abort', done);
    if (signal.aborted) done();
  });
}

export async function listEvents(deps: Deps, ctx: Ctx, query: unknown, signal?: AbortSignal): Promise<Result<FeedPageView>> {
  const denied = authorize(ctx, 'events.list');
  if (denied) return denied;
  const parsed = parseInput(listEventsQuery, query);
  if (!parsed.ok) return parsed;
  const q = parsed.value;
  const after = await resolveAfter(deps, q.after);
  if (!after.ok) return after;
  const filter: FeedFilter = { types: q.types, streamId: q.streamId };
  if (q.wait === 0) return feedPage(deps, await readFeed(deps.orm.em.fork(), after.value, q.limit, filter));

  // A long poll is a stream (SPEC §7, §10): it counts against the user's open streams, and it ends, and
  // answers as a new request would, once the caller loses the right to it.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort);
  let revokedBy: Refusal | undefined;
  const guard = openStreamGuard(deps, ctx.caller, {
    needs: [OPERATION_PERMISSIONS['events.list']],
    revoked(refusal) {
      revokedBy = refusal;
      stop.abort();
    },
    // a long poll delivers nothing through the guard: it reads again, and verifies
    overflow: () => undefined,
  });
  if (!guard.ok) {
    signal?.removeEventListener('abort', onAbort);
    return guard;
  }
  try {
    let page = await readFeed(deps.orm.em.fork(), after.value, q.limit, filter);
    if (page.events.length === 0 && !stop.signal.aborted) {
      await waitForEvents(deps, page.next, filter, q.wait * 1000, stop.signal);
      if (revokedBy) return revokedBy;
      if (signal?.aborted) return feedPage(deps, page);
      page = await readFeed(deps.orm.em.fork(), page.next, q.limit, filter);
    }
    if (revokedBy) return revokedBy;
    // Checked after the read (the first too: the caller may have lost its rights since it was authenticated),
    // so an event written after a revocation is never answered.
    if (page.events.length > 0) {
      const refusal = await guard.value.verify();
      if (refusal) return refusal;
    }
    return feedPage(deps, page);
  } finally {
    guard.value.close();
    signal?.removeEventListener('abort', onAbort);
  }
}

function feedPage(deps: Deps, page: { events: FeedEvent[]; next: FeedCursor }): Result<FeedPageView> {
  return ok({ data: page.events.map(toFeedEventView), nextCursor: encodeFeedCursor(deps, page.next) });
}

/** One event as a follower receives it, with the cursor to resume after it. */
export interface FollowedEvent {
  cursor: string;
  event: FeedEventView;
}

/**
 * An event with its cursor, as every follower receives it: made once per event, however many followers
 * the hub fans it out to (signing the cursor and copying the view were per follower, 100 times an event
 * with 100 subscribers). The hub hands every live follower the same event objects.
 */
const followed = new WeakMap<FeedEvent, FollowedEvent>();
export function followedEvent(deps: Pick<Deps, 'sessionSecret'>, e: FeedEvent): FollowedEvent {
  let f = followed.get(e);
  if (!f) {
    f = { cursor: encodeFeedCursor(deps, { transactionId: e.transactionId, position: e.position }), event: toFeedEventView(e) };
    followed.set(e, f);
  }
  return f;
}

/** A subscription's last item when the caller lost the right to it: the refusal a new request would get. */
export interface StreamEnded {
  endedBy: Refusal;
}

/** What a subscription's transport says about the bytes waiting for its client (SPEC §7: cut at 1 MB). */
export interface SubscriptionTransport {
  /** bytes written but not yet taken by the client */
  buffered(): number;
  /** drops the connection (frees what it buffers) */
  destroy(): void;
  /** aborts when the client has gone */
  closed: AbortSignal;
}

/** A stream whose client has this many bytes waiting for it is ended (SPEC §7); it resumes from its last cursor. */
export const MAX_STREAM_BUFFERED_BYTES = 1024 * 1024;

/** The JSON size of an event as a subscription sends it, measured once per event. */
const sizes = new WeakMap<FeedEvent, number>();
function sizeOf(deps: Pick<Deps, 'sessionSecret'>, e: FeedEvent): number {
  let n = sizes.get(e);
  if (n === undefined) {
    n = JSON.stringify(followedEvent(deps, e)).length + 64;
    sizes.set(e, n);
  }
  return n;
}

/** The subscription's permissions (SPEC §10): the feed's, and `tensions:read` for the tension data it carries. */
const SUBSCRIPTION_NEEDS = [OPERATION_PERMISSIONS['events.list'], OPERATION_PERMISSIONS['tensions.list']] as const;

/**
 * The feed as an async iterator (GraphQL subscriptions): the follower's events in order, until the
 * consumer returns (client gone), the hub closes (shutdown), the caller loses the right to it (SPEC §10),
 * or its client stops reading (1 MB waiting: the connection is dropped). Nothing is read per consumer once
 * it is live. It counts against the user's open streams from the moment it is opened.
 */
export async function followEvents(
  deps: Deps,
  ctx: Ctx,
  input: unknown,
  transport?: SubscriptionTransport,
): Promise<Result<AsyncIterable<FollowedEvent | StreamEnded>>> {
  const denied = authorize(ctx, 'events.list') ?? authorize(ctx, 'tensions.list');
  if (denied) return denied;
  const prepared = await prepareFollow(deps, ctx, input);
  if (!prepared.ok) return prepared;
  const { after, filter } = prepared.value;
  const queue: { item: FollowedEvent; bytes: number }[] = [];
  let queuedBytes = 0;
  let ended = false;
  /** the refusal that ended the stream, told to the client as its last item */
  let endedBy: Refusal | undefined;
  let wake: (() => void) | undefined;
  const poke = () => {
    wake?.();
    wake = undefined;
  };
  const guard = openStreamGuard(deps, ctx.caller, {
    needs: SUBSCRIPTION_NEEDS,
    deliver(events) {
      if (ended) return;
      for (const e of events) {
        const bytes = sizeOf(deps, e);
        queue.push({ item: followedEvent(deps, e), bytes });
        queuedBytes += bytes;
      }
      if (queue.length > MAX_QUEUED || queuedBytes + (transport?.buffered() ?? 0) > MAX_STREAM_BUFFERED_BYTES) {
        // a client that stops reading: drop it, and what waits for it
        queue.length = 0;
        transport?.destroy();
        void finish();
      }
      poke();
    },
    overflow() {
      queue.length = 0;
      transport?.destroy();
      void finish();
    },
    revoked(refusal) {
      // nothing checked and not yet taken is sent after a revocation
      queue.length = 0;
      endedBy = refusal;
      void finish();
    },
  });
  if (!guard.ok) return guard;
  const following = feedHub(deps).follow({
    after,
    filter,
    onEvents: (events) => guard.value.push(events),
    onEnd: () => void finish(),
  });
  function finish(): Promise<IteratorResult<FollowedEvent>> {
    ended = true;
    following.stop();
    if (guard.ok) guard.value.close();
    transport?.closed.removeEventListener('abort', gone);
    poke();
    return Promise.resolve({ done: true, value: undefined });
  }
  const gone = () => void finish();
  transport?.closed.addEventListener('abort', gone);
  if (transport?.closed.aborted) gone();
  return ok({
    [Symbol.asyncIterator]() {
      return {
        async next(): Promise<IteratorResult<FollowedEvent | StreamEnded>> {
          for (;;) {
            if (queue.length) {
              const { item, bytes } = queue.shift()!;
              queuedBytes -= bytes;
              return { done: false, value: item };
            }
            if (endedBy) {
              const refusal = endedBy;
              endedBy = undefined;
              return { done: false, value: { endedBy: refusal } };
            }
            if (ended) return finish();
            await new Promise<void>((r) => (wake = r));
          }
        },
        return: finish,
      };
    },
  });
}

/** A subscriber this many events behind is ended (it resumes from its last cursor). */
const MAX_QUEUED = 10_000;
