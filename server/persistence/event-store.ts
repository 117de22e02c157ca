// The event store: streams of events in `domain_events`, appended with optimistic concurrency.
import type { EntityManager } from '@mikro-orm/postgresql';
import { VersionConflictError } from '../domain/errors.js';
import { prepared } from './statements.js';

export interface StreamRef {
  type: string;
  id: string;
}

export interface NewEvent {
  type: string;
  data: Record<string, unknown>;
  schemaVersion?: number;
}

export interface EventMetadata {
  actorKind: 'human' | 'agent' | 'system';
  userId: string | null;
  userName: string | null;
  apiKeyId: string | null;
  apiKeyName: string | null;
  via: 'graphql' | 'rest' | 'mcp' | 'cli';
  requestId: string | null;
  correlationId: string | null;
  causationId: string | null;
  /** the OAuth grant whose token made the change (SPEC §13); absent otherwise */
  oauthGrantId?: string;
}

export interface StoredEvent {
  position: number;
  id: string;
  streamType: string;
  streamId: string;
  version: number;
  type: string;
  schemaVersion: number;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  occurredAt: Date;
}

export interface AppendOptions {
  newId: () => string;
  occurredAt: Date;
}

interface EventRow {
  position: string | number;
  id: string;
  stream_type: string;
  stream_id: string;
  version: number;
  type: string;
  schema_version: number;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  occurred_at: Date | string;
}

export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    position: Number(row.position),
    id: row.id,
    streamType: row.stream_type,
    streamId: row.stream_id,
    version: row.version,
    type: row.type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: row.metadata,
    occurredAt: new Date(row.occurred_at),
  };
}

export async function streamHeadVersion(em: EntityManager, stream: StreamRef): Promise<number> {
  const [row] = await em.execute<{ v: number }[]>(
    'select coalesce(max(version), 0)::int as v from domain_events where stream_type = ? and stream_id = ?',
    [stream.type, stream.id],
  );
  return row.v;
}

/**
 * The insert of `events` as versions expectedVersion+1…, up to (not including) `returning`: `sql(where)`
 * places a condition of the caller's (with its own parameters after `params`). `onConflict: 'skip'`: a
 * version some other writer holds is skipped (`on conflict do nothing`), so fewer rows come back than
 * were given; `'fail'`: the statement fails with a unique violation and writes nothing at all.
 */
export function eventInsert(
  stream: StreamRef,
  expectedVersion: number,
  events: NewEvent[],
  metadata: EventMetadata,
  opts: AppendOptions & { onConflict: 'skip' | 'fail' },
) {
  const params: unknown[] = [];
  const tuples = events.map((e, i) => {
    params.push(i, opts.newId(), stream.type, stream.id, expectedVersion + i + 1, e.type, e.schemaVersion ?? 1, JSON.stringify(e.data), JSON.stringify(metadata), opts.occurredAt);
    return '(?::int, ?::uuid, ?, ?::uuid, ?::int, ?, ?::int, ?::jsonb, ?::jsonb, ?::timestamptz)';
  });
  // `order by v.n`: the sequence numbers the rows in version order.
  const sql = (where: string) => `insert into domain_events (id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
     select v.id, v.stream_type, v.stream_id, v.version, v.type, v.schema_version, v.data, v.metadata, v.occurred_at
     from (values ${tuples.join(', ')}) v (n, id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
     ${where}
     order by v.n
     ${opts.onConflict === 'skip' ? 'on conflict (stream_type, stream_id, version) do nothing' : ''}`;
  return { sql, params };
}

/**
 * Appends `events` to `stream` if its head is `expectedVersion` (0 = the stream must not exist yet);
 * otherwise throws VersionConflictError and the caller's transaction rolls back.
 *
 * Must run inside the caller's transaction (`tx`). Nothing here is shared by every append: positions
 * come from a sequence and each row records its transaction's id (column defaults), so writers of
 * different streams never wait on each other. Writers of one stream do: the version check below sees
 * every append committed before this statement, and a writer that is still in flight at the same
 * version meets the unique (stream_type, stream_id, version) index, which makes this insert wait for it
 * and then skip the row (`on conflict do nothing`), so the conflict is reported as one, not as an error.
 * Tension commands lock their projection row first, so for them the first check already decides.
 *
 * Positions have gaps (a rolled-back append burns its numbers) and are not in commit order; readers of
 * the global order use `readAll`, which never passes a transaction still in flight.
 */
export async function appendToStream(
  tx: EntityManager,
  stream: StreamRef,
  expectedVersion: number,
  events: NewEvent[],
  metadata: EventMetadata,
  opts: AppendOptions,
): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  const insert = eventInsert(stream, expectedVersion, events, metadata, { ...opts, onConflict: 'skip' });
  const rows: EventRow[] = await tx.execute(
    `${insert.sql(`where (select coalesce(max(version), 0) from domain_events where stream_type = ? and stream_id = ?) = ?`)} returning *`,
    [...insert.params, stream.type, stream.id, expectedVersion],
  );
  if (rows.length < events.length) {
    throw new VersionConflictError(stream.id, await streamHeadVersion(tx, stream), expectedVersion);
  }
  return rows.map(toStoredEvent);
}

/**
 * A point in the global order: the writing transaction's id (xid8, as decimal text) and the position.
 * Events are ordered by (transactionId, position); `readAll` answers the events after the cursor.
 * The start of the store is `FEED_START`. Events written before the move to this scheme carry
 * transaction id 0 and keep their position order, ahead of everything written since.
 */
export interface FeedCursor {
  transactionId: string;
  position: number;
}

export const FEED_START: FeedCursor = { transactionId: '0', position: 0 };

export interface FeedPage {
  events: (StoredEvent & { transactionId: string })[];
  /** where to resume: the last event's cursor, or `after` unchanged when nothing new is visible */
  next: FeedCursor;
}

/**
 * The feed's horizon: every transaction below it has ended. Today that is the oldest transaction in
 * flight on the whole server (`pg_snapshot_xmin`), so a transaction held open in another database still
 * holds followers back. The per-database horizon (`market_feed_horizon()`, from the holders of the feed
 * lock that appending transactions take) is in the schema but not used: under the feed bench (600
 * rescores/s, 100 SSE subscribers) it let 1–4 events a run go undelivered, and the cause is not found
 * yet (see CHANGELOG and the closing note of 2026-11-25). Read by a statement of its own, before the page.
 * Read the feed outside transactions: inside one that has appended, the snapshot's xmin leaves its own id
 * out, so its own uncommitted events stay hidden only while no later transaction has completed.
 */
async function feedHorizon(em: EntityManager): Promise<string> {
  const [row] = await prepared<{ h: string }>(em, 'select pg_snapshot_xmin(pg_current_snapshot())::text as h', []);
  return row.h;
}

/**
 * Takes the feed lock for `tx` before the transaction writes anything: a transaction that appends events
 * after other writes (a command that locks what it references, an actor deletion, an import) must call
 * this first, or the database refuses its append (see feedHorizon).
 */
export async function takeFeedLock(tx: EntityManager): Promise<void> {
  await tx.execute('select market_feed_lock()');
}

/**
 * The global feed: up to `limit` events after `after`, in (transaction id, position) order, taking only
 * events below the feed's horizon (feedHorizon). A reader that keeps following `next` sees every
 * committed event exactly once, a late commit included, and each stream in version order.
 *
 * Transaction ids are compared as xid8, never as text: "100000" sorts before "97614" as text, and a page
 * ordered that way moves its cursor past every event with a shorter id (issue 29). So the text form is
 * selected under another name (`tid`), and `order by` names the column itself.
 */
export async function readAll(em: EntityManager, after: FeedCursor, limit: number): Promise<FeedPage> {
  const horizon = await feedHorizon(em);
  const rows = await prepared<EventRow & { tid: string }>(
    em,
    `select position, id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at,
            transaction_id::text as tid
     from domain_events
     where transaction_id < ?::text::xid8
       and (transaction_id, position) > (?::text::xid8, ?::bigint)
     order by domain_events.transaction_id, domain_events.position
     limit ?`,
    [horizon, after.transactionId, after.position, limit],
  );
  const events = rows.map((r) => ({ ...toStoredEvent(r), transactionId: r.tid }));
  const last = events[events.length - 1];
  return { events, next: last ? { transactionId: last.transactionId, position: last.position } : after };
}

export interface ReadStreamOptions {
  /** newest first when 'backward' */
  direction?: 'forward' | 'backward';
  /** forward: versions > after; backward: versions < before */
  after?: number;
  before?: number;
  limit?: number;
}

/** Whether the stream has any event (a discarded tension's history stays readable). */
export async function streamExists(em: EntityManager, stream: StreamRef): Promise<boolean> {
  const [row] = await em.execute('select 1 from domain_events where stream_type = ? and stream_id = ? limit 1', [stream.type, stream.id]);
  return row !== undefined;
}

export async function readStream(em: EntityManager, stream: StreamRef, opts: ReadStreamOptions = {}): Promise<StoredEvent[]> {
  const backward = opts.direction === 'backward';
  const rows: EventRow[] = await em.execute(
    `select * from domain_events where stream_type = ? and stream_id = ?
       and version > ? and version < ?
     order by version ${backward ? 'desc' : 'asc'} limit ?`,
    [stream.type, stream.id, opts.after ?? 0, opts.before ?? 2_147_483_647, opts.limit ?? 1_000_000],
  );
  return rows.map(toStoredEvent);
}

/** An event as a replay needs it (no metadata). */
export interface ReplayedEvent {
  streamId: string;
  version: number;
  type: string;
  data: Record<string, unknown>;
  occurredAt: Date;
}

/** Up to `limit` events of every stream of `streamType` after (streamId, version), in (stream, version) order. */
export async function readStreamsInOrder(
  em: EntityManager,
  streamType: string,
  after: { streamId: string; version: number },
  limit: number,
): Promise<ReplayedEvent[]> {
  const rows: { stream_id: string; version: number; type: string; data: Record<string, unknown>; occurred_at: Date | string }[] = await em.execute(
    `select stream_id, version, type, data, occurred_at from domain_events
     where stream_type = ? and (stream_id, version) > (?::uuid, ?::int)
     order by stream_id, version limit ?`,
    [streamType, after.streamId, after.version, limit],
  );
  return rows.map((r) => ({ streamId: r.stream_id, version: r.version, type: r.type, data: r.data, occurredAt: new Date(r.occurred_at) }));
}

/** Of the streams given with the last version a reader has of each, those with an event after it (one index probe each). */
export async function streamsMovedOn(em: EntityManager, streamType: string, lastSeen: Map<string, number>): Promise<string[]> {
  if (lastSeen.size === 0) return [];
  const rows: { stream_id: string }[] = await em.execute(
    `select e.stream_id from unnest(?::uuid[], ?::int[]) as n(id, v)
     join domain_events e on e.stream_type = ? and e.stream_id = n.id and e.version = n.v`,
    [`{${[...lastSeen.keys()].join(',')}}`, `{${[...lastSeen.values()].map((v) => v + 1).join(',')}}`, streamType],
  );
  return rows.map((r) => r.stream_id);
}

/** What a feed reader may narrow to; the cursor still moves over the events it skips. */
export interface FeedFilter {
  types?: string[];
  streamId?: string;
}

/** Orders two feed cursors (transaction ids compared as 64-bit numbers). */
export function compareFeedCursors(a: FeedCursor, b: FeedCursor): number {
  const ta = BigInt(a.transactionId);
  const tb = BigInt(b.transactionId);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.position - b.position;
}

/**
 * `readAll` with filters, in one statement (one snapshot, one horizon). When the page is not full, the
 * returned `next` moves on to the last visible event of the whole feed, so a filtered follower does not
 * scan the same unmatched events again; everything it skips that way is visible and did not match.
 */
export async function readFeed(em: EntityManager, after: FeedCursor, limit: number, filter: FeedFilter = {}): Promise<FeedPage> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.types?.length) {
    where.push('and type = any(?::text[])');
    params.push(`{${filter.types.map((t) => `"${t}"`).join(',')}}`);
  }
  if (filter.streamId) {
    where.push('and stream_id = ?::uuid');
    params.push(filter.streamId);
  }
  const horizon = await feedHorizon(em);
  const [row] = await prepared<{ page: (EventRow & { tid: string })[]; tail_tid: string | null; tail_pos: string | null }>(
    em,
    `with page as (
       select position, id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at,
              transaction_id::text as tid, transaction_id as xid
       from domain_events
       where transaction_id < ?::text::xid8 and (transaction_id, position) > (?::text::xid8, ?::bigint) ${where.join(' ')}
       order by domain_events.transaction_id, domain_events.position
       limit ?),
     tail as (
       select transaction_id, position from domain_events where transaction_id < ?::text::xid8
       order by transaction_id desc, position desc limit 1)
     select (select coalesce(json_agg(p order by p.xid, p.position), '[]'::json) from page p) as page,
            (select transaction_id::text from tail) as tail_tid, (select position from tail) as tail_pos`,
    [horizon, after.transactionId, after.position, ...params, limit, horizon],
  );
  const events = row.page.map((r) => ({ ...toStoredEvent(r), transactionId: r.tid }));
  const last = events[events.length - 1];
  let next: FeedCursor = last ? { transactionId: last.transactionId, position: last.position } : after;
  if ((events.length === 0 || events.length < limit) && row.tail_tid !== null) {
    const tail = { transactionId: row.tail_tid, position: Number(row.tail_pos) };
    if (compareFeedCursors(tail, next) > 0) next = tail;
  }
  return { events, next };
}

/** The cursor of the last visible event (FEED_START on an empty store): `after=now`. */
export async function feedHead(em: EntityManager): Promise<FeedCursor> {
  return (await readFeed(em, FEED_START, 0)).next;
}
