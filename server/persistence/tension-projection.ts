// The `tensions` projection: reads in the SPEC read shape, and writes of a folded state (commands and rebuild).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TensionState } from '../domain/tension.types.js';
import type { TensionView } from '../application/tensions/tension.inputs.js';

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

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

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
  return {
    id: row.id,
    name: row.name,
    currentContext: row.current_context,
    potentialFuture: row.potential_future,
    score: Number(row.score),
    state: row.state,
    actorId: row.actor_id,
    actor: { id: row.actor_id, name: row.actor_name, type: row.actor_type },
    leadUserId: row.lead_user_id,
    lead: row.lead_user_id && row.lead_name !== null ? { id: row.lead_user_id, name: row.lead_name, type: row.lead_type! } : null,
    version: Number(row.version),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export async function loadTensionRow(em: EntityManager, id: string): Promise<TensionRow | null> {
  const rows: TensionRow[] = await em.execute(`${TENSION_SELECT} from tensions t ${TENSION_FROM} where t.id = ?`, [id]);
  return rows[0] ?? null;
}

const COLUMNS = 'id, name, current_context, potential_future, score, state, actor_id, lead_user_id, version, created_at, updated_at';

function stateValues(s: TensionState): unknown[] {
  return [s.id, s.name, s.currentContext, s.potentialFuture, s.score, s.state, s.actorId, s.leadUserId, s.version, s.createdAt, s.updatedAt];
}

/**
 * Writes the folded state if the row is still at `expectedVersion` (0: it must not exist yet) and
 * answers it in the read shape, in one round trip; null when another writer got there first. The row
 * lock this takes is what concurrent commands on the same tension queue on.
 */
export async function saveTensionState(tx: EntityManager, s: TensionState, expectedVersion: number): Promise<TensionRow | null> {
  const rows: TensionRow[] = await tx.execute(
    `with t as (
       insert into tensions (${COLUMNS}) values (?::uuid, ?, ?, ?, ?, ?, ?::uuid, ?::uuid, ?, ?::timestamptz, ?::timestamptz)
       on conflict (id) do update set name = excluded.name, current_context = excluded.current_context,
         potential_future = excluded.potential_future, score = excluded.score, state = excluded.state,
         actor_id = excluded.actor_id, lead_user_id = excluded.lead_user_id, version = excluded.version,
         created_at = excluded.created_at, updated_at = excluded.updated_at
       where tensions.version = ?
       returning *)
     ${TENSION_SELECT} from t ${TENSION_FROM}`,
    [...stateValues(s), expectedVersion],
  );
  return rows[0] ?? null;
}

/** Deletes the row if it is still at `expectedVersion`; false when another writer got there first. */
export async function deleteTensionRow(tx: EntityManager, id: string, expectedVersion: number): Promise<boolean> {
  const rows = await tx.execute('delete from tensions where id = ? and version = ? returning id', [id, expectedVersion]);
  return rows.length === 1;
}

/** The row's version now (0 when gone): what a version conflict reports. */
export async function currentTensionVersion(tx: EntityManager, id: string): Promise<number> {
  const [row] = await tx.execute<{ version: number }[]>('select version from tensions where id = ?', [id]);
  return row ? Number(row.version) : 0;
}

/** Upserts many folded states at once (the rebuild). */
export async function saveTensionStates(tx: EntityManager, states: TensionState[]): Promise<void> {
  if (states.length === 0) return;
  await tx.execute(
    `insert into tensions (${COLUMNS})
     select r.id, r.name, r.current_context, r.potential_future, r.score, r.state, r.actor_id, r.lead_user_id, r.version,
            r.created_at, r.updated_at
     from jsonb_to_recordset(?::jsonb) as r(id uuid, name text, current_context text, potential_future text, score smallint,
            state text, actor_id uuid, lead_user_id uuid, version int, created_at timestamptz, updated_at timestamptz)
     on conflict (id) do update set name = excluded.name, current_context = excluded.current_context,
       potential_future = excluded.potential_future, score = excluded.score, state = excluded.state,
       actor_id = excluded.actor_id, lead_user_id = excluded.lead_user_id, version = excluded.version,
       created_at = excluded.created_at, updated_at = excluded.updated_at`,
    [
      JSON.stringify(
        states.map((s) => ({
          id: s.id, name: s.name, current_context: s.currentContext, potential_future: s.potentialFuture, score: s.score,
          state: s.state, actor_id: s.actorId, lead_user_id: s.leadUserId, version: s.version,
          created_at: s.createdAt.toISOString(), updated_at: s.updatedAt.toISOString(),
        })),
      ),
    ],
  );
}
