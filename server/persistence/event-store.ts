// The event store: streams of events in `domain_events`, appended with optimistic concurrency.
//
// What production does with it. A tension command never replays its stream to decide: it decides on the
// projection row, which is the fold of the stream up to the row's `version` (SPEC §3), kept so because the
// row and the events are written by one statement, conditional on the version the command read
// (writeTensionCommand in tension-projection.ts, built on `eventInsert` below). The row is the fold's
// snapshot, always at the head: a command costs one read and one write however long the stream, and the
// row's lock is what concurrent writers of one tension queue on. Streams are read whole or in part by the
// history (`readStream`, newest first), reads of the past (`readStream` up to a version, folded with the
// same `evolve`), the rebuild (`readStreamsInOrder`) and the feed (`readFeed`). Every read passes rows
// through `toStoredEvent`, which upcasts old event shapes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { upcastTensionEvent } from '../domain/tension.upcast.js';
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

export interface EventRow {
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

/**
 * An event's data in the shape readers of today expect (tension.upcast.ts): every read below goes through
 * here, so a fold, the history, the feed, the relay and the as-of reads never see an old shape, and
 * `schemaVersion` says the shape served. Only the export reads rows as they were written.
 */
function upcast(streamType: string, type: string, schemaVersion: number, data: Record<string, unknown>) {
  return streamType === 'tension' ? upcastTensionEvent(type, schemaVersion, data) : { schemaVersion, data };
}

export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    position: Number(row.position),
    id: row.id,
    streamType: row.stream_type,
    streamId: row.stream_id,
    version: row.version,
    type: row.type,
    ...upcast(row.stream_type, row.type, row.schema_version, row.data),
    metadata: row.metadata,
    occurredAt: new Date(row.occurred_at),
  };
}

export async function streamHeadVersion(em: EntityManager, stream: StreamRef): Promise<number> {
  const [row] = await em.execute<{ v: number }[]>('select coalesce(max(version), 0)::int as v from domain_events where stream_type = ? and stream_id = ?', [
    stream.type,
    stream.id,
  ]);
  return row.v;
}

/**
 * The insert of `events` as versions expectedVersion+1…, up to (not including) `returning`: `sql(where)`
 * places a condition of the caller's (with its own parameters after `params`). `onConflict: 'skip'`: a
 * version some other writer holds is skipped (`on conflict do nothing`), so fewer rows come back than
 * were given; `'fail'`: the statement fails with a unique violation and writes nothing at all.
 *
 * Nothing here is shared by every append: positions come from a sequence and each row records its
 * transaction's id (column defaults), so writers of different streams never wait on each other. Writers
 * of one stream do: one still in flight at the same version meets the unique (stream_type, stream_id,
 * version) index, which makes this insert wait for it and then skip the row or fail, so a lost race is
 * reported as a conflict, never as a second event at one version. Positions have gaps (a rolled-back
 * append burns its numbers) and are not in commit order; readers of the global order use `readFeed`,
 * which never passes a transaction still in flight.
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
    params.push(
      i,
      opts.newId(),
      stream.type,
      stream.id,
      expectedVersion + i + 1,
      e.type,
      e.schemaVersion ?? 1,
      JSON.stringify(e.data),
      JSON.stringify(metadata),
      opts.occurredAt,
    );
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
 * A point in the global order: the writing transaction's id (xid8, as decimal text) and the position.
 * Events are ordered by (transactionId, position); `readFeed` answers the events after the cursor.
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
 * The feed's horizon: every transaction below it that may append an event has ended. It is this
 * database's own (SPEC §10): the lowest transaction id among the holders of the feed lock, which every
 * appending transaction takes before it is given an id (the schema refuses an append otherwise), or the
 * next id to be assigned when there are none (`market_feed_horizon()`, Migration20261125230000). A
 * transaction in another database, or one here that appends nothing, holds no follower back.
 * Read by a statement of its own, before the page, so the page's snapshot is taken after it and sees
 * every transaction below it committed.
 * Read the feed outside transactions: inside one that has appended, its own id is the horizon, so its own
 * events (and everything after them) stay hidden until it commits.
 */
async function feedHorizon(em: EntityManager): Promise<string> {
  const [row] = await prepared<{ h: string }>(em, 'select market_feed_horizon()::text as h', []);
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

/** The last version of the stream recorded at or before `at` (0: none yet then). */
export async function streamVersionAt(em: EntityManager, stream: StreamRef, at: Date): Promise<number> {
  const [row] = await em.execute<{ v: number }[]>(
    'select coalesce(max(version), 0)::int as v from domain_events where stream_type = ? and stream_id = ? and occurred_at <= ?::timestamptz',
    [stream.type, stream.id, at.toISOString()],
  );
  return row.v;
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

/**
 * The events of one stream with after < version < before, oldest first, as a fold needs them (upcast, no
 * metadata: reads of the past fold thousands of events, and metadata is most of each row's bytes).
 */
export async function readStreamForFold(em: EntityManager, stream: StreamRef, after: number, before: number): Promise<ReplayedEvent[]> {
  const rows: { version: number; type: string; schema_version: number; data: Record<string, unknown>; occurred_at: Date | string }[] = await em.execute(
    `select version, type, schema_version, data, occurred_at from domain_events
     where stream_type = ? and stream_id = ? and version > ? and version < ? order by version`,
    [stream.type, stream.id, after, before],
  );
  return rows.map((r) => ({
    streamId: stream.id,
    version: r.version,
    type: r.type,
    data: upcast(stream.type, r.type, r.schema_version, r.data).data,
    occurredAt: new Date(r.occurred_at),
  }));
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
  const rows: { stream_id: string; version: number; type: string; schema_version: number; data: Record<string, unknown>; occurred_at: Date | string }[] =
    await em.execute(
      `select stream_id, version, type, schema_version, data, occurred_at from domain_events
       where stream_type = ? and (stream_id, version) > (?::uuid, ?::int)
       order by stream_id, version limit ?`,
      [streamType, after.streamId, after.version, limit],
    );
  return rows.map((r) => ({
    streamId: r.stream_id,
    version: r.version,
    type: r.type,
    data: upcast(streamType, r.type, r.schema_version, r.data).data,
    occurredAt: new Date(r.occurred_at),
  }));
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

/** The columns of a feed page's rows; `tid` is the text form, `xid` the id to order by (never the text). */
const PAGE_COLUMNS = `position, id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at,
              transaction_id::text as tid, transaction_id as xid`;

/**
 * readFeed's one statement below `horizon`. A filter by type reads its own index in feed order
 * (`(type, transaction_id, position)`, migration 20261126010000), so a rare type costs its own events, not a
 * walk over the whole feed. `prepare` is false for a filter by type: a prepared statement's generic plan
 * cannot see which types are asked for, takes them for a fifth of the feed, and walks the whole feed index
 * filtering every event (1.8 s at 640,000 events for a type with 50); planned with the values, PostgreSQL
 * knows a rare type from its statistics. A filter by stream reads the stream's version key (streamPageSql).
 * Exported so the plan-shape test explains it.
 */
export function feedPageSql(horizon: string, after: FeedCursor, limit: number, filter: FeedFilter): { sql: string; params: unknown[]; prepare: boolean } {
  const types = filter.types?.length ? `{${filter.types.map((t) => `"${t}"`).join(',')}}` : null;
  const page = filter.streamId
    ? streamPageSql(horizon, after, limit, filter.streamId, types)
    : {
        sql: `select ${PAGE_COLUMNS}
       from domain_events
       where transaction_id < ?::text::xid8 and (transaction_id, position) > (?::text::xid8, ?::bigint) ${types ? 'and type = any(?::text[])' : ''}
       order by domain_events.transaction_id, domain_events.position
       limit ?`,
        params: [horizon, after.transactionId, after.position, ...(types ? [types] : []), limit],
      };
  return {
    sql: `with page as (${page.sql}),
     tail as (
       select transaction_id, position from domain_events where transaction_id < ?::text::xid8
       order by transaction_id desc, position desc limit 1)
     select (select coalesce(json_agg(p order by p.xid, p.position), '[]'::json) from page p) as page,
            (select transaction_id::text from tail) as tail_tid, (select position from tail) as tail_pos`,
    params: [...page.params, horizon],
    prepare: !types,
  };
}

/**
 * One stream's page of the feed, read along its version key `(stream_type, stream_id, version)`, which every
 * append writes anyway: a second index by stream cost every append a random leaf, whose first change after a
 * checkpoint logs the whole page (37 % of an append's WAL, issue 37's rescore A/B; Migration20261129210000
 * dropped it). Within a stream the feed's order is the version order (the store refuses an append below its
 * previous version's transaction id, Migration20261129200000), so the events after the cursor are the
 * versions above the last one at or before it: found by a binary search over the versions (contiguous,
 * 1…head), a probe of the key each, about 14 for a stream of 10,000 events, wherever the cursor is in it.
 * Each probe is a `limit 1` subquery of its own, so the planner never turns the search into a join that
 * scans the stream. Then the page walks the versions from there, for each stream type that has the id and
 * events after the cursor: the id could name a stream of each type, and `kinds` lists the store's stream
 * types from the key's first column, one probe each (today one: `tension`).
 */
function streamPageSql(horizon: string, after: FeedCursor, limit: number, streamId: string, types: string | null) {
  return {
    sql: `with recursive kinds (t) as (
         select min(stream_type) from domain_events
         union all
         select (select min(d.stream_type) from domain_events d where d.stream_type > k.t) from kinds k where k.t is not null),
       heads (t, head) as (
         select k.t, (select coalesce(max(d.version), 0) from domain_events d where d.stream_type = k.t and d.stream_id = ?::uuid)
         from kinds k where k.t is not null),
       search (t, head, lo, hi) as (
         select t, head, 0, head from heads where head > 0
         union all
         select s.t, s.head, case when p.at_or_before then (s.lo + s.hi + 1) / 2 else s.lo end,
                case when p.at_or_before then s.hi else (s.lo + s.hi + 1) / 2 - 1 end
         from search s cross join lateral (
           select (d.transaction_id, d.position) <= (?::text::xid8, ?::bigint) as at_or_before from domain_events d
           where d.stream_type = s.t and d.stream_id = ?::uuid and d.version = (s.lo + s.hi + 1) / 2
           limit 1) p
         where s.lo < s.hi)
       select e.* from search s cross join lateral (
         select ${PAGE_COLUMNS} from domain_events
         where stream_type = s.t and stream_id = ?::uuid and version > s.lo
           and transaction_id < ?::text::xid8 and (transaction_id, position) > (?::text::xid8, ?::bigint) ${types ? 'and type = any(?::text[])' : ''}
         order by version limit ?) e
       where s.lo = s.hi and s.lo < s.head
       order by e.xid, e.position limit ?`,
    params: [
      streamId,
      after.transactionId,
      after.position,
      streamId,
      streamId,
      horizon,
      after.transactionId,
      after.position,
      ...(types ? [types] : []),
      limit,
      limit,
    ],
  };
}

/**
 * The global feed: up to `limit` events after `after`, in (transaction id, position) order, taking only
 * events below the feed's horizon (feedHorizon), filtered, the page in one statement read after the horizon's (one snapshot).
 * A reader that keeps following `next` sees every committed event exactly once, a late commit included,
 * and each stream in version order. When the page is not full, the returned `next` moves on to the last
 * visible event of the whole feed, so a filtered follower does not scan the same unmatched events again;
 * everything it skips that way is visible and did not match.
 *
 * Transaction ids are compared as xid8, never as text: "100000" sorts before "97614" as text, and a page
 * ordered that way moves its cursor past every event with a shorter id (issue 29). So the text form is
 * selected under another name (`tid`), and `order by` names the column itself.
 */
export async function readFeed(em: EntityManager, after: FeedCursor, limit: number, filter: FeedFilter = {}): Promise<FeedPage> {
  const horizon = await feedHorizon(em);
  const { sql, params, prepare } = feedPageSql(horizon, after, limit, filter);
  type Row = { page: (EventRow & { tid: string })[]; tail_tid: string | null; tail_pos: string | null };
  const [row] = prepare ? await prepared<Row>(em, sql, params) : await em.execute<Row[]>(sql, params);
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
