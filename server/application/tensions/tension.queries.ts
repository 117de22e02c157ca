// Tension reads: the filtered, keyset-paged list, one tension, and its history (SPEC §4, §5).

import { boundedTotal, TOTAL_BOUND, type ListTotal } from '../list-total.js';
import { ok, refuse, type Result } from '../../domain/errors.js';
import { readStream, streamExists } from '../../persistence/event-store.js';
import {
  countTensionRows,
  loadTensionRow,
  queryTensionRows,
  WALK,
  rowToView,
  STATE_ORDER,
  type ListRow,
  type TensionQuery,
  type TensionSortKey,
} from '../../persistence/tension-projection.js';
import { reader } from '../../persistence/transaction.js';
import { authorize } from '../authorize.js';
import type { Ctx, Deps } from '../context.js';
import { z } from 'zod';
import { decodeCursor, instantKey, intTextKey, textKey, toPage, uuidKey } from '../paging.js';
import { idOf } from '../schemas.js';
import { parseInput } from '../validate.js';
import { notFound, TENSION_STREAM } from './command-path.js';
import { toHistoryEntry } from './history-entry.js';
import { asOfQuery, historyQuery, listTensionsQuery, type HistoryPage, type PastTensionView, type TensionPage, type TensionView } from './tension.inputs.js';
import { readTensionAsOf } from './tension.past.js';

/** A list cursor's sort value, by the column's type: exactly what the keyset comparison below can cast. */
const SORT_VALUE = { int: intTextKey, timestamptz: instantKey, text: textKey } as const;
const SORT_CAST = { score: 'int', updatedAt: 'timestamptz', createdAt: 'timestamptz', name: 'text' } as const;
/**
 * The key a cursor holds: `{s, v, id}` for a column sort (as ever, so cursors issued before stay good); the
 * sorts through a group add `k`: state (v) and score (k), or the party's lower-cased name (v) and id (k),
 * both null for a tension without a lead.
 */
function listCursor(sort: string, key: TensionSortKey) {
  const s = z.literal(sort);
  switch (key) {
    case 'state':
      return z.strictObject({ s, v: z.enum(STATE_ORDER), k: intTextKey, id: uuidKey });
    case 'actor':
      return z.strictObject({ s, v: textKey, k: uuidKey, id: uuidKey });
    case 'lead':
      return z.union([z.strictObject({ s, v: textKey, k: uuidKey, id: uuidKey }), z.strictObject({ s, v: z.null(), k: z.null(), id: uuidKey })]);
    default:
      return z.strictObject({ s, v: SORT_VALUE[SORT_CAST[key]], id: uuidKey });
  }
}
const historyCursor = z.strictObject({ before: z.number().int().min(1).max(2_147_483_647) });

export async function listTensions(deps: Deps, ctx: Ctx, query: unknown): Promise<Result<TensionPage>> {
  const denied = authorize(ctx, 'tensions.list');
  if (denied) return denied;
  const parsed = parseInput(listTensionsQuery, query);
  if (!parsed.ok) return parsed;
  const q = parsed.value;
  const desc = q.sort.startsWith('-');
  const sortKey = q.sort.replace(/^-/, '') as TensionSortKey;

  let after: TensionQuery['after'];
  if (q.cursor) {
    const cursor = decodeCursor(deps, 'tensions', q.cursor, listCursor(q.sort, sortKey));
    if (!cursor.ok) return cursor;
    after = cursor.value;
  }
  const tuning = deps.searchScanMax === undefined ? WALK : { ...WALK, scanMax: deps.searchScanMax };
  const { rows, resume } = await queryTensionRows(reader(deps.orm), { ...q, sort: sortKey, descending: desc, after }, tuning, deps.searchMemory);
  const key = (r: ListRow) => (sortKey in SORT_CAST ? { s: q.sort, v: r.sort_value, id: r.id } : { s: q.sort, v: r.sort_value, k: r.sort_key, id: r.id });
  // a search of one or two characters that read its most rows: a short page, and the next goes on from there
  return ok(toPage(deps, 'tensions', rows, q.limit, key, rowToView, resume));
}

/** How many tensions the list's filters match, exact up to TOTAL_BOUND (a count with a LIMIT). */
export async function countTensions(deps: Deps, ctx: Ctx, query: unknown): Promise<Result<ListTotal>> {
  const denied = authorize(ctx, 'tensions.count');
  if (denied) return denied;
  const parsed = parseInput(listTensionsQuery.pick({ state: true, actorId: true, leadUserId: true, q: true, minScore: true }), query);
  if (!parsed.ok) return parsed;
  const { n, partial } = await countTensionRows(reader(deps.orm), parsed.value, TOTAL_BOUND, deps.searchScanMax);
  // counted over part of the list (a search of one or two letters): at least n
  return ok(boundedTotal(n, partial));
}

/** One tension as it is now, or, with `asOfVersion` / `asOf` in `query`, as it was then (SPEC §15). */
export async function getTension(deps: Deps, ctx: Ctx, rawId: string, query: unknown = {}): Promise<Result<TensionView | PastTensionView>> {
  const denied = authorize(ctx, 'tensions.get');
  if (denied) return denied;
  const past = parseInput(asOfQuery, query);
  if (!past.ok) return past;
  const id = idOf(rawId);
  if (!id) return notFound(rawId);
  if (past.value.asOfVersion !== undefined || past.value.asOf !== undefined) return readTensionAsOf(deps, id, past.value);
  const row = await loadTensionRow(reader(deps.orm), id);
  return row ? ok(rowToView(row)) : notFound(id);
}

export async function getTensionHistory(deps: Deps, ctx: Ctx, rawId: string, query: unknown): Promise<Result<HistoryPage>> {
  const denied = authorize(ctx, 'tensions.history');
  if (denied) return denied;
  const parsed = parseInput(historyQuery, query);
  if (!parsed.ok) return parsed;
  const id = idOf(rawId);
  if (!id) return notFound(rawId);
  let before: number | undefined;
  if (parsed.value.cursor) {
    const cursor = decodeCursor(deps, 'tensionHistory', parsed.value.cursor, historyCursor);
    if (!cursor.ok) return cursor;
    before = cursor.value.before;
  }
  const em = reader(deps.orm);
  const limit = parsed.value.limit;
  const events = await readStream(em, { type: TENSION_STREAM, id }, { direction: 'backward', before, limit: limit + 1 });
  if (events.length === 0) {
    if (!(await streamExists(em, { type: TENSION_STREAM, id }))) return refuse('not_found', `No tension ${id}.`);
  }
  return ok(toPage(deps, 'tensionHistory', events, limit, (e) => ({ before: e.version }), toHistoryEntry));
}
