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

/** The sorts on one column of `tensions`: `(column, id)` in one direction, as its index stores it. */
type ColumnSortKey = 'score' | 'updatedAt' | 'createdAt' | 'name';
/** The sorts through a group: a tension's state, its actor, its lead (issue 36; SPEC §5 is silent on them). */
type GroupSortKey = 'state' | 'actor' | 'lead';
export type TensionSortKey = ColumnSortKey | GroupSortKey;
const SORT_COLUMN = {
  score: ['t.score', 'int'],
  updatedAt: ['t.updated_at', 'timestamptz'],
  createdAt: ['t.created_at', 'timestamptz'],
  name: ['t.name', 'text'],
} as const;
/**
 * The sorts whose only index leads with the state, `(state, score desc, id desc)`, `(state, name, id)` and
 * `(state, created_at, id)` (Migration20261129220000 dropped `(score desc, id desc)` and `(name, id)`,
 * Migration20261130010000 `(created_at desc, id desc)`, which every rescore wrote too): without a state filter
 * their list is the three states' branches merged, each read from the cursor.
 */
const STATE_LED = new Set<TensionSortKey>(['score', 'name', 'createdAt']);
/** The states in the order `sort=state` lists them: the lifecycle's, which is also their alphabetical order. */
export const STATE_ORDER = ['alive', 'resolved', 'stale'] as const;

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
  /**
   * keyset: the sort value (as text) and id of the last row already seen; the sorts through a group also
   * need the group's second key `k` (state: the score; actor and lead: their id). `v` and `k` are null for
   * a row without a lead under `sort=lead`.
   */
  after?: { v: string | null; k?: string | null; id: string };
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

/**
 * How many tensions match the filters, counting at most `bound` + 1 rows. A text without a trigram (one or
 * two letters) cannot use the trigram indexes: it is tested on the lower-cased copy (textMatchSql) of at
 * most `scanMax` tensions, and when more match the other filters and fewer than `bound` + 1 of those held
 * it, the count is `partial`: at least `n` (a million tensions, `q=xq`: 0.7 s counted over every row).
 */
export async function countTensionRows(em: EntityManager, q: TensionFilter, bound: number, scanMax = WALK.scanMax): Promise<{ n: number; partial: boolean }> {
  const text = q.q && !hasTrigram(q.q) ? textMatchSql(q.q) : null;
  const { where, params } = tensionFilterSql(text ? { ...q, q: undefined } : q);
  const filters = where.length ? `where ${where.join(' and ')}` : '';
  if (!text) {
    const [row] = await em.execute<{ n: number }[]>(`select count(*)::int as n from (select 1 from tensions t ${filters} limit ?) s`, [...params, bound + 1]);
    return { n: row.n, partial: false };
  }
  // the columns the text is tested on, of at most scanMax rows
  const filtered = `select ${text.columns} from tensions t ${filters}`;
  const [row] = await em.execute<{ n: number }[]>(`select count(*)::int as n from (select 1 from (${filtered} limit ?) t where ${text.sql} limit ?) s`, [
    ...params,
    scanMax,
    ...text.params,
    bound + 1,
  ]);
  if (row.n > bound) return { n: row.n, partial: false };
  // fewer than bound + 1: every one of the first scanMax rows was read; were there more?
  const [more] = await em.execute<{ more: boolean }[]>(`select exists (${filtered} offset ?) as more`, [...params, scanMax]);
  return { n: row.n, partial: more.more };
}

/**
 * The list's statement: one page of the filtered list in keyset order, plus one row to tell whether more
 * follow; `sort_value` (and, for state, actor and lead, `sort_key`) is the cursor's. Every column sort reads
 * `(column, id)` in one direction, as its index stores it (the grouped sorts: stateListSql, partyListSql),
 * and a later page starts after the cursor's row (no OFFSET), so a page costs the same however
 * deep it is. `q` stays a case-insensitive substring; the trigram indexes of `tension_search` serve it
 * (migrations 20261126010000 and 20261126120000). Exported so the plan-shape test explains exactly what the service runs.
 */
export function tensionListSql(q: TensionQuery): { sql: string; params: unknown[] } {
  const source = listSource(q, q.limit + 1);
  // The page is chosen on `tensions` alone, then joined: the planner's join strategy can never turn a
  // page into a join and sort of every matching row (it did for `minScore=10&sort=score`, page 2).
  return {
    sql: `${TENSION_SELECT}, t.sort_value, t.sort_key from (${source.sql}) t ${TENSION_FROM} order by ${source.order}`,
    params: source.params,
  };
}

/**
 * The first `rows` tensions of the list in its order, from the cursor, as `tensions` rows (`t.*`) with their
 * cursor's `sort_value` and `sort_key`, not yet joined with actor and lead; `order` orders them (over `t`).
 * A page reads a page and one more (tensionListSql); a walked search, `rows` of the list without `q`
 * (tensionWalkSql).
 */
interface ListSource {
  sql: string;
  params: unknown[];
  order: string;
  /** with `firstGroup`: the cursor before the next group's first row, when a group follows */
  next?: TensionQuery['after'];
}

/**
 * `firstGroup` (a grouped sort's walk): only the cursor's group (or the first), so a walk never reads rows of
 * a later group that the earlier ones would have filled the page without; `next` says where the next starts.
 * `select`: what each row carries of `tensions t` (a walk: the columns its order reads and its text test, so
 * that no whole row is sorted or stored on the way); it holds no parameter, as it leads each branch's own.
 */
function listSource(q: TensionQuery, rows: number, firstGroup = false, select = 't.*'): ListSource {
  if (q.sort === 'state') return stateListSql(q, rows, firstGroup, select);
  if (q.sort === 'actor' || q.sort === 'lead') return partyListSql(q, q.sort, rows, firstGroup, select);
  const [column, cast] = SORT_COLUMN[q.sort];
  const dir = q.descending ? 'desc' : 'asc';
  const after: [string, ...unknown[]][] = q.after ? [[`(${column}, t.id) ${q.descending ? '<' : '>'} (?::${cast}, ?::uuid)`, q.after.v, q.after.id]] : [];
  if (!q.state && STATE_LED.has(q.sort)) {
    // one branch a state, merged: each reads `(state, column, id)` from the cursor (see STATE_LED)
    const columns = `${column}::text as sort_value, null::text as sort_key`;
    const branches = STATE_ORDER.map((state) => ({
      ...branch(q, select, columns, [['t.state = ?', state], ...after], `${column} ${dir}, t.id ${dir}`, rows),
      group: 0,
    }));
    return unionPage(branches, `${column} ${dir}, t.id ${dir}`, rows, firstGroup, select);
  }
  const { where, params, add } = tensionFilterSql(q);
  for (const [sql, ...values] of after) add(sql, ...values);
  return {
    sql: `select ${select}, ${column}::text as sort_value, null::text as sort_key from tensions t
       ${where.length ? `where ${where.join(' and ')}` : ''}
       order by ${column} ${dir}, t.id ${dir} limit ?`,
    params: [...params, rows],
    order: `${column} ${dir}, t.id ${dir}`,
  };
}

/** One branch of a grouped page: tensions matching the filters and `extra`, as the outer query orders them, at most `rows`. */
function branch(
  q: TensionQuery,
  select: string,
  columns: string,
  extra: [string, ...unknown[]][],
  order: string,
  rows: number,
): { sql: string; params: unknown[] } {
  const { where, params, add } = tensionFilterSql(q);
  for (const [sql, ...values] of extra) add(sql, ...values);
  return {
    sql: `select ${select}, ${columns} from tensions t where ${where.length ? where.join(' and ') : 'true'} order by ${order} limit ?`,
    params: [...params, rows],
  };
}

/**
 * A branch of a grouped list: its `sort_group`; for a walk, the cursor before its first row, and the order
 * of its rows over its own columns when that is the group's order (read alone, it needs no sort of its rows).
 */
type Branch = { sql: string; params: unknown[]; group: number; start?: TensionQuery['after']; ownOrder?: string };
/** Cursors before every row of a group: no score reaches the largest int, no v4 UUID is the nil or the max one. */
const MAX_INT = '2147483647';
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const MAX_UUID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** Branches in the order of their `sort_group`, the first `rows` of them in `order`; with `firstGroup`, the first group's only. */
function unionPage(branches: Branch[], order: string, rows: number, firstGroup: boolean, select: string): ListSource {
  let next: TensionQuery['after'];
  if (firstGroup && branches.length > 0) {
    const first = Math.min(...branches.map((b) => b.group));
    next = branches.find((b) => b.group > first)?.start;
    branches = branches.filter((b) => b.group === first);
    const [only] = branches;
    if (branches.length === 1 && only.ownOrder) return { sql: only.sql, params: only.params, order: only.ownOrder, next };
  }
  if (branches.length === 0)
    branches = [
      { sql: `select ${select}, 0 as sort_group, null::text as sort_value, null::text as sort_key from tensions t where false`, params: [], group: 0 },
    ];
  return {
    sql: `select * from (${branches.map((b) => `(${b.sql})`).join(' union all ')}) t order by ${order} limit ?`,
    params: [...branches.flatMap((b) => b.params), rows],
    order,
    next,
  };
}

/**
 * `sort=state`: the states in their order (alive, resolved, stale; `-state` the other way round), and within
 * a state as the default list, strongest first (`score desc, id desc`): an operator who groups by state
 * still wants the most pressing tension of each group on top, so `-state` turns the groups round, not the
 * order inside them. One branch per state left to read, each a walk of `tensions_state_score_idx`
 * `(state, score desc, id desc)` from the cursor's row, at most a page; the cursor holds the state, score and id.
 */
function stateListSql(q: TensionQuery, rows: number, firstGroup: boolean, select: string): ListSource {
  const order = q.descending ? [...STATE_ORDER].reverse() : [...STATE_ORDER];
  const start = q.after ? order.indexOf(q.after.v as (typeof STATE_ORDER)[number]) : 0;
  const branches = order
    .map((state, i) => ({ state, i }))
    .filter(({ state, i }) => i >= Math.max(start, 0) && (!q.state || q.state === state))
    .map(({ state, i }) => {
      const extra: [string, ...unknown[]][] = [['t.state = ?', state]];
      if (q.after && i === start) extra.push(['(t.score, t.id) < (?::int, ?::uuid)', q.after.k, q.after.id]);
      return {
        ...branch(q, select, `${i} as sort_group, t.state as sort_value, t.score::text as sort_key`, extra, 't.score desc, t.id desc', rows),
        group: i,
        start: { v: state, k: MAX_INT, id: MAX_UUID },
        ownOrder: 't.score desc, t.id desc',
      };
    });
  return unionPage(branches, 't.sort_group, t.score desc, t.id desc', rows, firstGroup, select);
}

/**
 * `sort=actor` and `sort=lead`: by the actor's (the lead user's) name as the actors list orders names,
 * `lower(name)`, then its id, then the tension's id, all in the one direction; under `lead` the tensions
 * without a lead come last in both directions, by id. Each tension carries its parties' sort names
 * (`actor_sort`, `lead_sort`, null without a lead: Migration20261129160000, kept by triggers), so the list
 * reads `tensions_actor_sort_idx` `(actor_sort, actor_id, id)` or `tensions_lead_sort_idx` (then
 * `tensions_no_lead_idx`) from the cursor as a column sort reads its index, and a search walks them as it
 * walks theirs. The cursor holds the name, the
 * party's id and the tension's id (name and party null for no lead). A party renamed between two pages
 * moves in the list, as a tension renamed under `sort=name` does.
 */
function partyListSql(q: TensionQuery, sort: 'actor' | 'lead', rows: number, firstGroup: boolean, select: string): ListSource {
  const [name, party] = sort === 'actor' ? (['t.actor_sort', 't.actor_id'] as const) : (['t.lead_sort', 't.lead_user_id'] as const);
  const dir = q.descending ? 'desc' : 'asc';
  const cmp = q.descending ? '<' : '>';
  const after = q.after;
  const inNoLead = sort === 'lead' && after !== undefined && after.v === null;
  const branches: Branch[] = [];
  if (!inNoLead) {
    const extra: [string, ...unknown[]][] = sort === 'lead' ? [['t.lead_user_id is not null']] : [];
    if (after) extra.push([`(${name}, ${party}, t.id) ${cmp} (?, ?::uuid, ?::uuid)`, after.v, after.k, after.id]);
    branches.push({
      ...branch(q, select, `0 as sort_group, ${name} as sort_value, ${party}::text as sort_key`, extra, `${name} ${dir}, ${party} ${dir}, t.id ${dir}`, rows),
      group: 0,
      ownOrder: `t.sort_value ${dir}, ${party} ${dir}, t.id ${dir}`,
    });
  }
  if (sort === 'lead' && !q.leadUserId) {
    const extra: [string, ...unknown[]][] = [['t.lead_user_id is null']];
    if (inNoLead) extra.push([`t.id ${cmp} ?::uuid`, after.id]);
    branches.push({
      ...branch(q, select, `1 as sort_group, null::text as sort_value, null::text as sort_key`, extra, `t.id ${dir}`, rows),
      group: 1,
      start: { v: null, k: null, id: q.descending ? MAX_UUID : NIL_UUID },
      ownOrder: `t.id ${dir}`,
    });
  }
  return unionPage(branches, `t.sort_group, t.sort_value ${dir}, ${party} ${dir}, t.id ${dir}`, rows, firstGroup, select);
}

export type ListRow = TensionRow & { sort_value: string | null; sort_key: string | null };

/** A search, which may walk the list's order (tensionWalkSql). */
const walkable = (q: TensionQuery): q is TensionQuery & { q: string } => Boolean(q.q);
type WalkRow = ListRow & { matched: boolean; walk_end: boolean; table_rows: string | number };

/**
 * A search read in the list's own order, as the list without `q` reads it (listSource: the sort's index, or
 * under a grouped sort its groups, from the cursor), testing at most `budget` rows for the text and stopping
 * at `q.limit + 1` matches: the shape that serves a common word, whose trigrams' posting lists are long and
 * whose matches are many (the trigram plan reads every match to sort them: 24–50 × a tension's read at a
 * million tensions, 50–300 × under `sort=lead`). Null without `q`. It answers the matches (`matched`) in
 * the list's order and, when fewer match, the walk's `budget`-th row (`walk_end`, a match or not): present,
 * it says where the walk stopped, so another can go on from there; absent, that the group (under a grouped
 * sort: `next` says where the next starts) or the list ended within the budget. Each row carries the
 * planner's estimate of the table's size (`table_rows`).
 *
 * Each walked row is tested where it is read and carried on narrow (its id, the columns the order reads,
 * its cursor: what the sort's index holds, with the texts' signature, so that the walk reads that index
 * alone and the table only for a row the signature passes: walkTest); the page's rows are then read whole, by id. The `budget`-th row: a second reading of the
 * list that runs only when the matches did not fill the page (an append stops at its limit) and tests no text, often the sort's index alone. Numbering every walked row instead
 * (`row_number()`, which stores each row it numbers, whole rows before) cost a common word's page at a
 * million tensions 5 of its statement's 14 ms (`EXPLAIN ANALYZE`); the statement now takes 9 ms against
 * 11–14 (medians of 25). Every sort reads its list this way, `actor` and `lead` too since their tensions
 * carry the parties' names (before, a walk of the parties numbered its rows).
 */
export function tensionWalkSql(q: TensionQuery, budget: number): { sql: string; params: unknown[]; next?: TensionQuery['after'] } | null {
  if (!walkable(q)) return null;
  // The text is a parameter of the statement's head, so the test, read where each row is read, holds none.
  const match = walkTest(q.q);
  // what the list's order reads (`order` is spelt over `t`: the sort's index holds it), and the test's answer
  const columns = (matched: string) => `t.id, ${WALK_ORDER_COLUMN[q.sort]}, ${matched} as matched`;
  const source = listSource({ ...q, q: undefined }, budget, true, columns(match));
  // (a state's row carries its group)
  const row = (matched: string) => `${columns(matched)}, t.sort_value, t.sort_key${q.sort === 'state' ? ', t.sort_group' : ''}`;
  const walk = {
    sql: `select * from (
        (select ${row('true')}, false as walk_end from (${source.sql}) t where t.matched order by ${source.order} limit ?)
        union all
        (select ${row('false')}, true from (${source.sql}) t order by ${source.order} offset ? - 1 limit 1)) w
      limit ?`,
    params: [...source.params, q.limit + 1, ...source.params, budget, q.limit + 1],
    order: `w.walk_end, ${source.order.replace(/\bt\./g, 'w.')}`,
  };
  return {
    sql: `with walk_text as (select lower(?::text) as needle, ?::text as pattern, tension_text_sig(lower(?::text)) as sig)
     ${TENSION_SELECT}, w.sort_value, w.sort_key, w.matched, w.walk_end,
       (select reltuples::bigint from pg_class where oid = 'tensions'::regclass) as table_rows
     from (${walk.sql}) w join tensions t on t.id = w.id ${TENSION_FROM}
     order by ${walk.order}`,
    params: [q.q, likePattern(q.q), q.q, ...walk.params],
    next: source.next,
  };
}

/**
 * Whether the trigram indexes can serve `text` as a substring: pg_trgm takes a `LIKE` pattern's trigrams
 * from its runs of three or more word characters (letters and digits). Without one, the indexes' plan reads
 * every row; the walk reads the list's rows at a fraction of that cost.
 */
function hasTrigram(text: string): boolean {
  return /[\p{L}\p{N}]{3}/u.test(text);
}

/** What separates the texts in `tensions.search_text` (migration 20261129090000). */
const SEARCH_TEXT_SEPARATOR = '\x1f';

/**
 * Whether row `t` holds `text` in its name or either text, case-insensitively: what the three `ILIKE`s of
 * tension_search answer, as one `strpos` in `t.search_text`, the texts lower-cased once when written with
 * the `lower()` an `ILIKE` applies to both sides (about 0.35 µs a row against 2.8). A text holding the
 * separator could match across two texts there, so it is tested with the `ILIKE`s themselves.
 */
function textMatchSql(text: string): { sql: string; params: unknown[]; columns: string } {
  const p = likePattern(text);
  return { ...textTest(text, 'lower(?::text)', '?'), params: text.includes(SEARCH_TEXT_SEPARATOR) ? [p, p, p] : [text] };
}

/**
 * The column each sort's walk reads beside the id for its order (the rest of the order is `sort_value`,
 * `sort_key` and `sort_group`): all in the sort's index, so that the walk reads the index alone.
 */
const WALK_ORDER_COLUMN: Record<TensionSortKey, string> = {
  score: 't.score',
  updatedAt: 't.updated_at',
  createdAt: 't.created_at',
  name: 't.name',
  state: 't.score',
  actor: 't.actor_id',
  lead: 't.lead_user_id',
};

/**
 * The walk's test of row `t` for the text (walk_text's `needle`, `pattern` and `sig`), as textMatchSql's.
 * A text with a trigram is first tested on the row's `search_sig` (Migration20261130130000), which the
 * walked indexes carry: only a row whose signature holds the text's is read from the table for `strpos`,
 * so a walk of the indexes alone reads the table for its matches and about 5 % of the rest. A text without
 * none of three ASCII letters or digits in a row (its signature is empty) is tested on every row, as before.
 */
function walkTest(text: string): string {
  const test = textTest(text, '(select needle from walk_text)', '(select pattern from walk_text)');
  if (!/[a-z0-9]{3}/.test(text.toLowerCase()) || text.includes(SEARCH_TEXT_SEPARATOR)) return test.sql;
  return `case when (t.search_sig & (select sig from walk_text)) = (select sig from walk_text)
    then (select ${test.sql.replace(/\bt\./g, 'x.')} from tensions x where x.id = t.id) else false end`;
}

/** textMatchSql's test with the text's lower-cased form and `ILIKE` pattern as the SQL `needle` and `pattern` give them. */
function textTest(text: string, needle: string, pattern: string): { sql: string; columns: string } {
  if (text.includes(SEARCH_TEXT_SEPARATOR))
    return {
      sql: `(t.name ilike ${pattern} or t.current_context ilike ${pattern} or t.potential_future ilike ${pattern})`,
      columns: 't.name, t.current_context, t.potential_future',
    };
  return { sql: `strpos(t.search_text, ${needle}) > 0`, columns: 't.search_text' };
}

/** How a search chooses between walking the list's order and reading its matches through the trigram indexes. */
export interface WalkTuning {
  /** the rows the first walk tests */
  probe: number;
  /** the most rows the walks test in all */
  max: number;
  /**
   * what one match costs read through the trigram indexes (its posting list entries, its recheck, its row,
   * the sort), in rows walked: measured at a million tensions, 18 µs a match against 1.6 µs a walked row,
   * so about 11; taken as 20, leaning to the walk, whose cost `max` bounds, while the indexes' grows with
   * the table (and a probe's few matches make a rough estimate of the frequency)
   */
  matchCost: number;
  /**
   * the most rows one request reads for a text without a trigram (one or two letters, `a b`): no index can
   * find it, so a rare one would read the whole list; the page then stops there, with what it found and a
   * cursor after the last row read (a million tensions, `q=xq`: 2.7–3.0 s a page before)
   */
  scanMax: number;
  /**
   * a walk of at most this many rows more is taken whatever the indexes would cost: its cost is known and
   * small (index-only since Migration20261130130000: 8,750 rows in 20–26 ms at 200,000 tensions), while the
   * indexes' is an estimate from a probe's few matches, and reads two rows at random a match. At 200,000
   * tensions a common word's probe found too few, priced the indexes cheaper, and every later request went
   * there (remembered): 121–155 ms p50 in a 7 GB database whose pages were cold (bench/README.md).
   */
  cheap: number;
}
export const WALK: WalkTuning = { probe: 2_000, max: 40_000, matchCost: 20, scanMax: 100_000, cheap: 20_000 };

/**
 * A page of the list's rows, `limit` + 1 when more follow; `resume`: a search stopped at `scanMax` rows read
 * before its page filled, and the next page starts after this row (read, not a match), whatever `rows` holds.
 */
export interface ListRows {
  rows: ListRow[];
  resume: ListRow | null;
}

/**
 * What this instance's searches learnt, per text, filters and order: how frequent its matches are in the list and
 * the table's estimated size, and when. A search asked again (its next page, a refetch, the same words
 * from another caller) starts from there instead of probing: a rare text goes straight to the trigram
 * indexes, a common one walks as far as a page needs. Estimates only, never rows: what a search answers
 * does not depend on them. At most SEARCH_MEMORY_ENTRIES (the oldest goes), each for SEARCH_MEMORY_MS.
 */
export type SearchMemory = Map<string, { frequency: number; tableRows: number; /** `performance.now()`: a clock step does not age an entry */ at: number }>;
export const SEARCH_MEMORY_ENTRIES = 1_000;
export const SEARCH_MEMORY_MS = 10 * 60_000;

/**
 * One page of the list. A search (`q`) first walks `probe` rows of the list's order
 * (tensionWalkSql): a page and one more found there, or the list's end, is the answer. Otherwise the matches
 * found so far estimate how frequent the text is, and from it what each way costs: walking on from where the
 * last walk stopped until the page is full (rows, a quarter more for safety, and at least as many as walked
 * so far, so a sparse stretch costs a few round trips), or reading every match through
 * the trigram indexes (the matches the table holds at that frequency, times `matchCost`). The walk goes on
 * while it is the cheaper and within `max` rows in all; otherwise tensionListSql reads the page through the
 * indexes. A text the probe did not find (a rare one) goes there at once. A grouped sort walks one group
 * at a time (`next`). With `memory`, a
 * text, filters and order searched in the last minutes start from what was learnt then (SearchMemory),
 * without the probe. A text without a trigram never goes to the indexes (their plan would read every row):
 * it walks on, and past `scanMax` rows in one request the page ends short with `resume`. Every path answers
 * the same rows:
 * the first matches in the list's order among its first rows in that order are the first matches of all.
 * Measured at a million tensions, four at a time on two cores, remembering (bench/README.md, 2026-11-29): a
 * common word's page p50 21–26 ms walked (the indexes: 47–49 ms before the lower-cased copy), p99 4–7 × a
 * tension's read under the column sorts; under `sort=lead` p50 85 ms walking the parties (the indexes: 1.7 s),
 * 39 ms since each tension carries its parties' sort names (a busier round, the column sorts' 33–53 ms).
 */
export async function queryTensionRows(em: EntityManager, q: TensionQuery, tuning: WalkTuning = WALK, memory?: SearchMemory): Promise<ListRows> {
  if (walkable(q)) {
    // per order too: a text's matches cluster differently in each (a word that starts names, under `name`)
    const key = JSON.stringify([q.q.toLowerCase(), q.sort, q.descending, q.state, q.actorId, q.leadUserId, q.minScore]);
    const known = memory?.get(key);
    const remember = (frequency: number, tableRows: number) => {
      if (!memory) return;
      memory.delete(key);
      if (memory.size >= SEARCH_MEMORY_ENTRIES) memory.delete(memory.keys().next().value!);
      memory.set(key, { frequency, tableRows, at: performance.now() });
    };
    const found: ListRow[] = [];
    let after = q.after;
    let walked = 0;
    let lastRead: ListRow | null = null;
    let tableRows = known?.tableRows ?? 0;
    const fresh = known && performance.now() - known.at < SEARCH_MEMORY_MS ? known : undefined;
    // how frequent the text is in this list: what was learnt, then what this request's walks found
    let frequency = fresh?.frequency ?? 0;
    let budget = fresh ? walkBudget(q.limit + 1, fresh.frequency, fresh.tableRows, 0, tuning) : tuning.probe;
    // A text without a trigram: the indexes' plan would read every row (at several times a walked row's
    // cost), so the walk goes on, twice as far each time, to the list's end or `scanMax` rows, where the
    // page stops with what it found (`resume`).
    const scan = !hasTrigram(q.q);
    if (scan) budget ??= tuning.probe;
    while (budget !== null) {
      // (at least one row: a walk that read only ends of groups has no row to resume after yet)
      if (scan) budget = Math.max(1, Math.min(budget, tuning.scanMax - walked));
      const walk = tensionWalkSql({ ...q, after, limit: q.limit - found.length }, budget)!;
      const rows = await em.execute<WalkRow[]>(walk.sql, walk.params);
      let end: ListRow | undefined;
      // in the list's order: the matches, then the budget-th row
      for (const { matched, walk_end, table_rows, ...row } of rows) {
        tableRows = Number(table_rows);
        if (matched) found.push(row);
        if (walk_end) end = row;
        lastRead = row;
      }
      if (found.length > q.limit) {
        // The rows this walk read to the page's last match are not counted (at most its budget): the
        // text is at least that frequent, and as frequent as the walks before it found it, which chose
        // this budget; the lower bound alone would fall with each remembered page, as the budget grows.
        remember(Math.max(frequency, found.length / (walked + budget)), tableRows);
        return { rows: found.slice(0, q.limit + 1), resume: null };
      }
      walked += budget;
      if (!end) {
        // no row at the budget: the group ended within it (counted as the whole budget: an estimate
        // that errs to the indexes), and with no group after it the list did, and every match of the
        // rest of the list is here
        if (!walk.next) return { rows: found, resume: null };
        after = walk.next;
      } else after = { v: end.sort_value, k: end.sort_key, id: end.id };
      frequency = found.length / walked;
      remember(frequency, tableRows);
      // the next page starts after the last row read: where this walk would have gone on
      if (scan && walked >= tuning.scanMax && lastRead) return { rows: found, resume: lastRead };
      budget = walkBudget(q.limit + 1 - found.length, frequency, tableRows, walked, tuning);
      if (scan) budget = Math.max(budget ?? 0, walked);
    }
  }
  const { sql, params } = tensionListSql(q);
  return { rows: await em.execute<ListRow[]>(sql, params), resume: null };
}

/**
 * How many rows to walk next for `needed` more matches at `frequency`, having walked `walked`: the rows
 * expected, a quarter more for safety, and at least as many as walked so far (a sparse stretch costs a few
 * round trips, never one per row); null when the trigram indexes are the cheaper (the matches a table of
 * `tableRows` holds at that frequency, each priced at `matchCost` rows) and the walk is longer than `cheap`,
 * or the walk would pass `max`.
 */
function walkBudget(needed: number, frequency: number, tableRows: number, walked: number, tuning: WalkTuning): number | null {
  if (!(frequency > 0)) return null;
  const budget = Math.max(walked, Math.ceil((needed / frequency) * 1.25));
  const indexed = frequency * Math.max(tableRows, walked) * tuning.matchCost;
  if (budget <= tuning.cheap && walked + budget <= tuning.max) return budget;
  return budget > indexed || walked + budget > tuning.max ? null : budget;
}

export function loadTensionRow(em: EntityManager, id: string): Promise<TensionRow | null> {
  return prepared<TensionRow>(em, `${TENSION_SELECT} from tensions t ${TENSION_FROM} where t.id = ?`, [id]).then((rows) => rows[0] ?? null);
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
