// The `tensions` projection: reads in the SPEC read shape, and writes of a folded state (commands and rebuild).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TensionState } from '../domain/tension.types.js';
import type { TensionView } from '../application/tensions/tension.inputs.js';
import { isUniqueViolation, likePattern } from './transaction.js';
import { prepared } from './statements.js';
import { eventInsert, toStoredEvent, type AppendOptions, type EventMetadata, type NewEvent, type StoredEvent, type StreamRef } from './event-store.js';

export interface TensionRow {
  id: string;
  name: string;
  current_context: string | null;
  potential_future: string | null;
  score: number;
  state: TensionState['state'];
  actor_id: string;
  lead_user_id: string | null;
  version: number;
  created_at: Date | string;
  updated_at: Date | string;
  actor_name: string;
  actor_type: string;
  lead_name: string | null;
  lead_type: string | null;
}

/** Selects a tension row `t` with its actor and lead; append `where …` / `order by …`. */
export const TENSION_SELECT = `select t.id, t.name, t.current_context, t.potential_future, t.score, t.state, t.actor_id,
    t.lead_user_id, t.version, t.created_at, t.updated_at,
    a.name as actor_name, a.type as actor_type, u.name as lead_name, u.type as lead_type`;
export const TENSION_FROM = `join actors a on a.id = t.actor_id left join users u on u.id = t.lead_user_id`;

export function rowToState(row: TensionRow): TensionState {
  return {
    id: row.id,
    name: row.name,
    currentContext: row.current_context,
    potentialFuture: row.potential_future,
    score: Number(row.score),
    state: row.state,
    actorId: row.actor_id,
    leadUserId: row.lead_user_id,
    version: Number(row.version),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export function rowToView(row: TensionRow): TensionView {
  const { createdAt, updatedAt, ...state } = rowToState(row);
  return {
    ...state,
    actor: { id: row.actor_id, name: row.actor_name, type: row.actor_type },
    lead: row.lead_user_id && row.lead_name !== null ? { id: row.lead_user_id, name: row.lead_name, type: row.lead_type! } : null,
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}

export type TensionSortKey = 'score' | 'updatedAt' | 'createdAt' | 'name';
const SORT_COLUMN = {
  score: ['t.score', 'int'],
  updatedAt: ['t.updated_at', 'timestamptz'],
  createdAt: ['t.created_at', 'timestamptz'],
  name: ['t.name', 'text'],
} as const;

export interface TensionFilter {
  state?: string;
  actorId?: string;
  leadUserId?: string;
  minScore?: number;
  q?: string;
}

export interface TensionQuery extends TensionFilter {
  sort: TensionSortKey;
  descending: boolean;
  /** keyset: the sort value (as text) and id of the last row already seen */
  after?: { v: string; id: string };
  limit: number;
}

/** The list's filters as SQL over `tensions t` (the one place they are spelt, for a page and for a count). */
function tensionFilterSql(q: TensionFilter): { where: string[]; params: unknown[]; add: (sql: string, ...values: unknown[]) => void } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    where.push(sql);
    params.push(...values);
  };
  if (q.state) add('t.state = ?', q.state);
  if (q.actorId) add('t.actor_id = ?', q.actorId);
  if (q.leadUserId) add('t.lead_user_id = ?', q.leadUserId);
  if (q.minScore !== undefined) add('t.score >= ?', q.minScore);
  if (q.q) {
    const p = likePattern(q.q);
    // The texts' copy in tension_search carries the trigram indexes (migration 20261126120000: a rescore
    // writes no trigram). The ILIKEs are what those indexes serve; tension_text_matches is the same
    // predicate priced as costly, so the planner reads the indexes rather than filter every row.
    add(
      `t.id in (select s.id from tension_search s
         where (s.name ilike ? or s.current_context ilike ? or s.potential_future ilike ?)
           and tension_text_matches(s.name, s.current_context, s.potential_future, ?))`,
      p,
      p,
      p,
      p,
    );
  }
  return { where, params, add };
}

/** How many tensions match the filters, counting at most `bound` + 1 rows (never a scan of all of them). */
export async function countTensionRows(em: EntityManager, q: TensionFilter, bound: number): Promise<number> {
  const { where, params } = tensionFilterSql(q);
  const [row] = await em.execute<{ n: number }[]>(
    `select count(*)::int as n from (select 1 from tensions t ${where.length ? `where ${where.join(' and ')}` : ''} limit ?) s`,
    [...params, bound + 1],
  );
  return row.n;
}

/**
 * The list's statement: one page of the filtered list in keyset order, plus one row to tell whether more
 * follow; `sort_value` is the cursor's. Every sort reads `(column, id)` in one direction, as its index
 * stores it, and a later page starts after the cursor's row (no OFFSET), so a page costs the same however
 * deep it is. `q` stays a case-insensitive substring; the trigram indexes of `tension_search` serve it
 * (migrations 20261126010000 and 20261126120000). Exported so the plan-shape test explains exactly what the service runs.
 */
export function tensionListSql(q: TensionQuery): { sql: string; params: unknown[] } {
  const [column, cast] = SORT_COLUMN[q.sort];
  const { where, params, add } = tensionFilterSql(q);
  if (q.after) add(`(${column}, t.id) ${q.descending ? '<' : '>'} (?::${cast}, ?::uuid)`, q.after.v, q.after.id);
  const dir = q.descending ? 'desc' : 'asc';
  // The page is chosen on `tensions` alone, then joined: the planner's join strategy can never turn a
  // page into a join and sort of every matching row (it did for `minScore=10&sort=score`, page 2).
  return {
    sql: `${TENSION_SELECT}, t.sort_value from (
       select t.*, ${column}::text as sort_value from tensions t
       ${where.length ? `where ${where.join(' and ')}` : ''}
       order by ${column} ${dir}, t.id ${dir} limit ?) t ${TENSION_FROM}
     order by ${column} ${dir}, t.id ${dir}`,
    params: [...params, q.limit + 1],
  };
}

export async function queryTensionRows(em: EntityManager, q: TensionQuery): Promise<(TensionRow & { sort_value: string })[]> {
  const { sql, params } = tensionListSql(q);
  return em.execute(sql, params);
}

export async function loadTensionRow(em: EntityManager, id: string): Promise<TensionRow | null> {
  const rows = await prepared<TensionRow>(em, `${TENSION_SELECT} from tensions t ${TENSION_FROM} where t.id = ?`, [id]);
  return rows[0] ?? null;
}

const COLUMNS = 'id, name, current_context, potential_future, score, state, actor_id, lead_user_id, version, created_at, updated_at';

function stateValues(s: TensionState): unknown[] {
  return [s.id, s.name, s.currentContext, s.potentialFuture, s.score, s.state, s.actorId, s.leadUserId, s.version, s.createdAt, s.updatedAt];
}

const SET_ALL = `name = ?, current_context = ?, potential_future = ?, score = ?, state = ?, actor_id = ?::uuid,
  lead_user_id = ?::uuid, version = ?, created_at = ?::timestamptz, updated_at = ?::timestamptz`;

export interface TensionWrite {
  stream: StreamRef;
  /** the head the command decided on: 0 creates the row, anything else must still be the row's version */
  head: number;
  /** the folded state to store; null deletes the row (discard) */
  next: TensionState | null;
  events: NewEvent[];
  metadata: EventMetadata;
  opts: AppendOptions;
}

/**
 * A tension command's whole write in one statement: the projection row (insert, conditional update or
 * conditional delete) and, only if that row write happened, the events as versions head+1…. The row's
 * condition proves the head (every append to a tension stream goes through its row), so no max(version)
 * probe. The statement is all or nothing, so it is safe without a transaction around it: a version
 * already in the stream (a projection behind its stream) fails the unique (stream, version) index and
 * nothing is written ('stream_ahead'). Answers null when the row write found another writer's version
 * or no row.
 */
export async function writeTensionCommand(
  tx: EntityManager,
  w: TensionWrite,
): Promise<{ row: TensionRow | 'deleted'; events: StoredEvent[] } | 'stream_ahead' | null> {
  // Inside a transaction a failed statement would abort it (and the caller still has to read the
  // stream's head), so there the version is skipped and the caller's rollback undoes the row write.
  const inTransaction = tx.isInTransaction();
  try {
    const written = await writeOnce(tx, w, inTransaction ? 'skip' : 'fail');
    return written && written.events.length < w.events.length ? 'stream_ahead' : written;
  } catch (err) {
    if (!inTransaction && isUniqueViolation(err)) return 'stream_ahead';
    throw err;
  }
}

/**
 * The one statement of a tension command's write (see writeTensionCommand): for a deletion it answers
 * `deleted` (0 or 1) and `events`; otherwise the written row in the read shape with `events`, or no row.
 */
export function tensionWriteSql(w: TensionWrite, onConflict: 'skip' | 'fail'): { sql: string; params: unknown[] } {
  const insert = eventInsert(w.stream, w.head, w.events, w.metadata, { ...w.opts, onConflict });
  const events = `e as (${insert.sql('where exists (select 1 from t)')} returning *)`;
  // The feed lock first, before the row write gives this transaction its id (see takeFeedLock): the row
  // write's condition reads `l`, so the lock is taken before any row is touched.
  const lock = `l as materialized (select market_feed_lock() as taken)`;
  const eventsJson = `(select coalesce(json_agg(row_to_json(e) order by e.version), '[]'::json) from e) as events`;
  if (!w.next) {
    return {
      sql: `with ${lock}, t as (delete from tensions where id = ? and version = ? and exists (select 1 from l) returning id), ${events}
       select (select count(*) from t)::int as deleted, ${eventsJson}`,
      params: [w.stream.id, w.head, ...insert.params],
    };
  }
  const [id, ...rest] = stateValues(w.next);
  const write =
    w.head === 0
      ? {
          sql: `insert into tensions (${COLUMNS}) select ?::uuid, ?, ?, ?, ?, ?, ?::uuid, ?::uuid, ?, ?::timestamptz, ?::timestamptz
                where exists (select 1 from l) on conflict (id) do nothing returning *`,
          params: [id, ...rest],
        }
      : { sql: `update tensions set ${SET_ALL} where id = ? and version = ? and exists (select 1 from l) returning *`, params: [...rest, id, w.head] };
  return {
    sql: `with ${lock}, t as (${write.sql}), ${events} ${TENSION_SELECT}, ${eventsJson} from t ${TENSION_FROM}`,
    params: [...write.params, ...insert.params],
  };
}

async function writeOnce(
  tx: EntityManager,
  w: TensionWrite,
  onConflict: 'skip' | 'fail',
): Promise<{ row: TensionRow | 'deleted'; events: StoredEvent[] } | null> {
  type Events = { events: Parameters<typeof toStoredEvent>[0][] | string };
  const parse = (x: Events): StoredEvent[] =>
    (typeof x.events === 'string' ? (JSON.parse(x.events) as Parameters<typeof toStoredEvent>[0][]) : x.events).map(toStoredEvent);
  const { sql, params } = tensionWriteSql(w, onConflict);
  if (!w.next) {
    const [r] = await prepared<{ deleted: number } & Events>(tx, sql, params);
    return Number(r.deleted) === 1 ? { row: 'deleted', events: parse(r) } : null;
  }
  const [row] = await prepared<TensionRow & Events>(tx, sql, params);
  if (!row) return null;
  const { events: _events, ...tension } = row;
  return { row: tension, events: parse(row) };
}

/** The row's version now (0 when gone): what a version conflict reports. */
export async function currentTensionVersion(tx: EntityManager, id: string): Promise<number> {
  const [row] = await prepared<{ version: number }>(tx, 'select version from tensions where id = ?', [id]);
  return row ? Number(row.version) : 0;
}

const RECORDSET = `jsonb_to_recordset(?::jsonb) as r(id uuid, name text, current_context text, potential_future text, score smallint,
  state text, actor_id uuid, lead_user_id uuid, version int, created_at timestamptz, updated_at timestamptz)`;

function recordset(states: TensionState[]): string {
  return JSON.stringify(
    states.map((s) => ({
      id: s.id,
      name: s.name,
      current_context: s.currentContext,
      potential_future: s.potentialFuture,
      score: s.score,
      state: s.state,
      actor_id: s.actorId,
      lead_user_id: s.leadUserId,
      version: s.version,
      created_at: s.createdAt.toISOString(),
      updated_at: s.updatedAt.toISOString(),
    })),
  );
}

/**
 * Inserts many folded states whose rows are missing (the rebuild). A row that appeared meanwhile (a
 * concurrent rebuild wrote it, and a command may already have moved it on) is left as it is.
 */
export async function insertTensionStates(tx: EntityManager, states: TensionState[]): Promise<void> {
  if (states.length === 0) return;
  await tx.execute(
    `insert into tensions (${COLUMNS})
     select r.id, r.name, r.current_context, r.potential_future, r.score, r.state, r.actor_id, r.lead_user_id, r.version,
            r.created_at, r.updated_at
     from ${RECORDSET} order by r.id
     on conflict (id) do nothing`,
    [recordset(states)],
  );
}

/** Overwrites many rows with their folded states (the rebuild, holding those rows' locks). */
export async function updateTensionStates(tx: EntityManager, states: TensionState[]): Promise<void> {
  if (states.length === 0) return;
  await tx.execute(
    `update tensions t set name = r.name, current_context = r.current_context, potential_future = r.potential_future,
       score = r.score, state = r.state, actor_id = r.actor_id, lead_user_id = r.lead_user_id, version = r.version,
       created_at = r.created_at, updated_at = r.updated_at
     from ${RECORDSET} where t.id = r.id`,
    [recordset(states)],
  );
}

const uuidArray = (ids: string[]) => `{${ids.join(',')}}`;

/** The rows of `ids` as states (missing ones absent); `lock`: `for update`, taken in id order. */
export async function loadTensionStates(tx: EntityManager, ids: string[], opts: { lock: boolean }): Promise<Map<string, TensionState>> {
  if (ids.length === 0) return new Map();
  const rows: TensionRow[] = await tx.execute(
    `select t.*, null as actor_name, null as actor_type, null as lead_name, null as lead_type from tensions t
     where t.id = any(?::uuid[]) order by t.id ${opts.lock ? 'for update' : ''}`,
    [uuidArray(ids)],
  );
  return new Map(rows.map((r) => [r.id, rowToState(r)]));
}

/** Locks actors `for key share` in id order (what a row referencing them takes), so none is deleted meanwhile. */
export async function keyShareActors(tx: EntityManager, actorIds: string[]): Promise<void> {
  if (actorIds.length) await tx.execute('select id from actors where id = any(?::uuid[]) order by id for key share', [uuidArray([...actorIds].sort())]);
}

export async function deleteTensionRows(tx: EntityManager, ids: string[]): Promise<void> {
  if (ids.length) await tx.execute('delete from tensions where id = any(?::uuid[])', [uuidArray(ids)]);
}

/** Rows with no stream of `streamType` behind them at all; deletes them unless `dryRun`. Answers how many. */
export async function deleteOrphanTensionRows(em: EntityManager, streamType: string, dryRun: boolean): Promise<number> {
  const orphans: { id: string }[] = await em.execute(
    `select t.id from tensions t where not exists
       (select 1 from domain_events e where e.stream_type = ? and e.stream_id = t.id)`,
    [streamType],
  );
  if (dryRun || orphans.length === 0) return orphans.length;
  await em.execute(
    `delete from tensions t where t.id = any(?::uuid[])
       and not exists (select 1 from domain_events e where e.stream_type = ? and e.stream_id = t.id)`,
    [uuidArray(orphans.map((o) => o.id)), streamType],
  );
  return orphans.length;
}
