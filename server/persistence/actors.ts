// Actor rows (SPEC §2 Actor): the SQL behind the actor use cases and the actor checks of identity writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { likePattern } from './transaction.js';

export interface ActorRow {
  id: string;
  name: string;
  type: 'organization' | 'individual' | 'virtual' | 'agent';
  created_at: Date | string;
  updated_at: Date | string;
  tension_count: number | string;
  version: number;
  sort_name: string;
}

const SELECT = `select a.id, a.name, a.type, a.created_at, a.updated_at, a.version,
  (select count(*) from tensions t where t.actor_id = a.id)::int as tension_count, lower(a.name) as sort_name from actors a`;

export async function actorRowById(em: EntityManager, id: string): Promise<ActorRow | null> {
  const [row] = await em.execute<ActorRow[]>(`${SELECT} where a.id = ?`, [id]);
  return row ?? null;
}

export interface ActorFilter {
  type?: ActorRow['type'];
  /** matched in the name, wildcards literal */
  q?: string;
  /** the `(lower(name), id)` of the last row of the previous page */
  after?: { n: string; id: string };
}

/** Up to `take` actors matching `filter`, in `(lower(name), id)` order. */
function actorFilterSql(filter: ActorFilter): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.type) {
    where.push('a.type = ?');
    params.push(filter.type);
  }
  if (filter.q) {
    where.push('a.name ilike ?');
    params.push(likePattern(filter.q));
  }
  if (filter.after) {
    where.push('(lower(a.name), a.id) > (?, ?::uuid)');
    params.push(filter.after.n, filter.after.id);
  }
  return { where, params };
}

export async function listActorRows(em: EntityManager, filter: ActorFilter, take: number): Promise<ActorRow[]> {
  const { where, params } = actorFilterSql(filter);
  return em.execute<ActorRow[]>(`${SELECT} ${where.length ? `where ${where.join(' and ')}` : ''} order by lower(a.name), a.id limit ?`, [...params, take]);
}

/** How many actors match `filter`, counting at most `bound + 1` rows (a count with a LIMIT, never every row). */
export async function countActorRows(em: EntityManager, filter: Omit<ActorFilter, 'after'>, bound: number): Promise<number> {
  const { where, params } = actorFilterSql(filter);
  const [row] = await em.execute<{ n: number }[]>(
    `select count(*)::int as n from (select 1 from actors a ${where.length ? `where ${where.join(' and ')}` : ''} limit ?) s`,
    [...params, bound + 1],
  );
  return row.n;
}

export async function insertActor(tx: EntityManager, a: { id: string; name: string; type: string; at: Date }): Promise<void> {
  await tx.execute('insert into actors (id, name, type, created_at, updated_at) values (?, ?, ?, ?, ?)', [a.id, a.name, a.type, a.at, a.at]);
}

/** Renames the actor when the name differs (version + 1); the previous name, or null when nothing changed. */
export async function renameActor(tx: EntityManager, id: string, name: string, at: Date): Promise<string | null> {
  const [renamed] = await tx.execute<{ previous: string }[]>(
    `with old as (select id, name from actors where id = ?)
     update actors a set name = ?, updated_at = ?, version = a.version + 1 from old where a.id = old.id and old.name <> ? returning old.name as previous`,
    [id, name, at, name],
  );
  return renamed ? renamed.previous : null;
}

/** The actor's name and type, the row locked until the transaction ends; null when absent. */
export async function lockActor(tx: EntityManager, id: string): Promise<{ name: string; type: string } | null> {
  const [actor] = await tx.execute<{ name: string; type: string }[]>('select name, type from actors where id = ? for update', [id]);
  return actor ?? null;
}

/** The ids of the actor's tensions, their rows locked in id order (the order every command takes them in). */
export async function lockTensionIdsOf(tx: EntityManager, actorId: string): Promise<string[]> {
  const rows = await tx.execute<{ id: string }[]>('select id from tensions where actor_id = ? order by id for update', [actorId]);
  return rows.map((r) => r.id);
}

export async function deleteActorRow(tx: EntityManager, id: string): Promise<void> {
  await tx.execute('delete from actors where id = ?', [id]);
}

/** The actor's type, the row share-locked (it cannot be deleted before the transaction ends); null when absent. */
export async function shareActorType(tx: EntityManager, id: string): Promise<string | null> {
  const [actor] = await tx.execute<{ type: string }[]>('select type from actors where id = ? for share', [id]);
  return actor ? actor.type : null;
}
