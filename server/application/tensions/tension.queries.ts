// Tension reads: the filtered, keyset-paged list, one tension, and its history (SPEC §4, §5).

import { ok, refuse, type Result } from '../../domain/errors.js';
import { readStream } from '../../persistence/event-store.js';
import { loadTensionRow, rowToView, TENSION_FROM, TENSION_SELECT, type TensionRow } from '../../persistence/tension-projection.js';
import { authorize } from '../authorize.js';
import type { Ctx, Deps } from '../context.js';
import { z } from 'zod';
import { decodeCursor, encodeCursor, instantKey, intTextKey, likePattern, textKey, uuidKey } from '../paging.js';
import { UUID_RE } from '../../domain/ids.js';
import { parseInput } from '../validate.js';
import { notFound, TENSION_STREAM } from './command-path.js';
import { toHistoryEntry } from './history-entry.js';
import { historyQuery, listTensionsQuery, type HistoryPage, type TensionPage, type TensionView } from './tension.inputs.js';

const SORT_COLUMN = { score: ['t.score', 'int'], updatedAt: ['t.updated_at', 'timestamptz'], createdAt: ['t.created_at', 'timestamptz'], name: ['t.name', 'text'] } as const;

/** A list cursor's sort value, by the column's type: exactly what the keyset comparison below can cast. */
const SORT_VALUE = { int: intTextKey, timestamptz: instantKey, text: textKey } as const;
const listCursor = (sort: string, cast: keyof typeof SORT_VALUE) => z.strictObject({ s: z.literal(sort), v: SORT_VALUE[cast], id: uuidKey });
const historyCursor = z.strictObject({ before: z.number().int().min(1).max(2_147_483_647) });

export async function listTensions(deps: Deps, ctx: Ctx, query: unknown): Promise<Result<TensionPage>> {
  const denied = authorize(ctx, 'tensions.list');
  if (denied) return denied;
  const parsed = parseInput(listTensionsQuery, query);
  if (!parsed.ok) return parsed;
  const q = parsed.value;
  const desc = q.sort.startsWith('-');
  const [column, cast] = SORT_COLUMN[q.sort.replace(/^-/, '') as keyof typeof SORT_COLUMN];

  const where: string[] = [];
  const params: unknown[] = [];
  if (q.state) {
    where.push('t.state = ?');
    params.push(q.state);
  }
  if (q.actorId) {
    where.push('t.actor_id = ?');
    params.push(q.actorId);
  }
  if (q.leadUserId) {
    where.push('t.lead_user_id = ?');
    params.push(q.leadUserId);
  }
  if (q.minScore !== undefined) {
    where.push('t.score >= ?');
    params.push(q.minScore);
  }
  if (q.q) {
    const p = likePattern(q.q);
    where.push('(t.name ilike ? or t.current_context ilike ? or t.potential_future ilike ?)');
    params.push(p, p, p);
  }
  if (q.cursor) {
    const cursor = decodeCursor(deps, 'tensions', q.cursor, listCursor(q.sort, cast));
    if (!cursor.ok) return cursor;
    where.push(`(${column}, t.id) ${desc ? '<' : '>'} (?::${cast}, ?::uuid)`);
    params.push(cursor.value.v, cursor.value.id);
  }
  const dir = desc ? 'desc' : 'asc';
  const rows: (TensionRow & { sort_value: string })[] = await (deps.orm.em.fork()).execute(
    `${TENSION_SELECT}, ${column}::text as sort_value from tensions t ${TENSION_FROM}
     ${where.length ? `where ${where.join(' and ')}` : ''}
     order by ${column} ${dir}, t.id ${dir} limit ?`,
    [...params, q.limit + 1],
  );
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return ok({
    data: page.map(rowToView),
    nextCursor: rows.length > q.limit ? encodeCursor(deps, 'tensions', { s: q.sort, v: last.sort_value, id: last.id }) : null,
  });
}

export async function getTension(deps: Deps, ctx: Ctx, id: string): Promise<Result<TensionView>> {
  const denied = authorize(ctx, 'tensions.get');
  if (denied) return denied;
  if (!UUID_RE.test(id)) return notFound(id);
  const row = await loadTensionRow(deps.orm.em.fork(), id);
  return row ? ok(rowToView(row)) : notFound(id);
}

export async function getTensionHistory(deps: Deps, ctx: Ctx, id: string, query: unknown): Promise<Result<HistoryPage>> {
  const denied = authorize(ctx, 'tensions.history');
  if (denied) return denied;
  const parsed = parseInput(historyQuery, query);
  if (!parsed.ok) return parsed;
  if (!UUID_RE.test(id)) return notFound(id);
  let before: number | undefined;
  if (parsed.value.cursor) {
    const cursor = decodeCursor(deps, 'tensionHistory', parsed.value.cursor, historyCursor);
    if (!cursor.ok) return cursor;
    before = cursor.value.before;
  }
  const em = deps.orm.em.fork();
  const limit = parsed.value.limit;
  const events = await readStream(em, { type: TENSION_STREAM, id }, { direction: 'backward', before, limit: limit + 1 });
  if (events.length === 0) {
    const [exists] = await em.execute('select 1 from domain_events where stream_type = ? and stream_id = ? limit 1', [TENSION_STREAM, id]);
    if (!exists) return refuse('not_found', `No tension ${id}.`);
  }
  const page = events.slice(0, limit);
  return ok({
    data: page.map(toHistoryEntry),
    nextCursor: events.length > limit ? encodeCursor(deps, 'tensionHistory', { before: page[page.length - 1].version }) : null,
  });
}
