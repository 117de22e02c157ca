// Role rows (SPEC §2 Role): the SQL behind the role use cases and the role read shape. Effective grants
// and the inheritance walk are role-graph.ts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from './role-graph.js';
import { likePattern } from './transaction.js';

export interface RoleRow {
  id: string;
  code: string;
  name: string;
  permissions: string[];
  system: boolean;
  inherits: string[] | null;
  version: number;
}

const ROLE_SELECT = `
  select r.id, r.code, r.name, r.permissions, r.system, r.version,
    (select array_agg(ri.inherited_role_id::text order by ri.inherited_role_id) from role_inherits ri where ri.role_id = r.id) as inherits
  from roles r`;

/** Roles by id, in code order; unknown ids are simply absent. */
export async function roleRowsById(em: EntityManager, ids: readonly string[]): Promise<RoleRow[]> {
  if (ids.length === 0) return [];
  return em.execute<RoleRow[]>(`${ROLE_SELECT} where r.id = any(?::uuid[]) order by r.code`, [pgArray(ids)]);
}

/** Up to `take` roles ordered by code, after `afterCode`; with `q`, only those whose name or code holds it (case-insensitive). */
export async function roleRowsAfterCode(em: EntityManager, afterCode: string | undefined, take: number, q?: string): Promise<RoleRow[]> {
  const like = q ? likePattern(q) : null;
  return em.execute<RoleRow[]>(
    `${ROLE_SELECT} where (?::text is null or r.code > ?) and (?::text is null or r.name ilike ? or r.code ilike ?) order by r.code limit ?`,
    [afterCode ?? null, afterCode ?? null, like, like, like, take],
  );
}

/** How many roles `q` finds (all without it), counting at most `bound + 1` rows (a count with a LIMIT, never every row). */
export async function countRoleRows(em: EntityManager, q: string | undefined, bound: number): Promise<number> {
  const like = q ? likePattern(q) : null;
  const [row] = await em.execute<{ n: number }[]>(
    'select count(*)::int as n from (select 1 from roles r where (?::text is null or r.name ilike ? or r.code ilike ?) limit ?) s',
    [like, like, like, bound + 1],
  );
  return row.n;
}

/** Which roles each of the users holds directly. */
export async function roleLinksOfUsers(em: EntityManager, userIds: readonly string[]): Promise<{ user_id: string; role_id: string }[]> {
  return em.execute<{ user_id: string; role_id: string }[]>('select user_id, role_id from user_roles where user_id = any(?::uuid[])', [pgArray(userIds)]);
}

/** The ids among `ids` that name no role. */
export async function unknownRoleIds(em: EntityManager, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await em.execute<{ id: string }[]>('select id from roles where id = any(?::uuid[])', [pgArray(ids)]);
  const known = new Set(rows.map((r) => r.id));
  return ids.filter((id) => !known.has(id));
}

/** Is `code` some role's (other than `exceptId`)? */
export async function codeTaken(em: EntityManager, code: string, exceptId?: string): Promise<boolean> {
  const [taken] =
    exceptId === undefined
      ? await em.execute('select 1 from roles where code = ?', [code])
      : await em.execute('select 1 from roles where code = ? and id <> ?', [code, exceptId]);
  return Boolean(taken);
}

/** A role that is not a system role, inheriting nothing yet. */
export async function insertRole(tx: EntityManager, r: { id: string; code: string; name: string; permissions: readonly string[]; at: Date }): Promise<void> {
  await tx.execute(`insert into roles (id, code, name, permissions, system, created_at, updated_at) values (?, ?, ?, ?::text[], false, ?, ?)`, [
    r.id,
    r.code,
    r.name,
    pgArray(r.permissions),
    r.at,
    r.at,
  ]);
}

export async function addInherits(tx: EntityManager, roleId: string, parents: readonly string[]): Promise<void> {
  for (const parent of parents) {
    await tx.execute('insert into role_inherits (role_id, inherited_role_id) values (?, ?)', [roleId, parent]);
  }
}

/** The role inherits exactly `parents`. */
export async function replaceInherits(tx: EntityManager, roleId: string, parents: readonly string[]): Promise<void> {
  await tx.execute('delete from role_inherits where role_id = ?', [roleId]);
  await addInherits(tx, roleId, parents);
}

/** Writes the role's own fields and counts a change (version + 1). */
export async function updateRoleRow(
  tx: EntityManager,
  roleId: string,
  r: { code: string; name: string; permissions: readonly string[] },
  at: Date,
): Promise<void> {
  await tx.execute('update roles set code = ?, name = ?, permissions = ?::text[], updated_at = ?, version = version + 1 where id = ?', [
    r.code,
    r.name,
    pgArray(r.permissions),
    at,
    roleId,
  ]);
}

/** The role's own fields; null when absent. */
export async function roleFields(em: EntityManager, roleId: string): Promise<{ code: string; name: string; permissions: string[]; system: boolean } | null> {
  const [role] = await em.execute<{ code: string; name: string; permissions: string[]; system: boolean }[]>(
    'select code, name, permissions, system from roles where id = ?',
    [roleId],
  );
  return role ?? null;
}

/** How many users hold the role directly and how many roles inherit it. */
export async function roleUse(em: EntityManager, roleId: string): Promise<{ users: number; roles: number }> {
  const [use] = await em.execute<{ users: number; roles: number }[]>(
    `select (select count(*)::int from user_roles where role_id = ?) as users,
            (select count(*)::int from role_inherits where inherited_role_id = ?) as roles`,
    [roleId, roleId],
  );
  return use;
}

export async function deleteRoleRow(tx: EntityManager, roleId: string): Promise<void> {
  await tx.execute('delete from roles where id = ?', [roleId]);
}

/**
 * The system role `admin` (`*`), created unless a system role exists (the first start seeds the same one,
 * bootstrap.ts); the id of the oldest system role. Found by its flag, not its code, so a database whose role
 * was renamed before codes became immutable still works.
 */
export async function ensureSystemRole(tx: EntityManager, id: string, at: Date): Promise<string> {
  await tx.execute(
    `insert into roles (id, code, name, permissions, system, created_at, updated_at)
     select ?, 'admin', 'Administrator', '{*}', true, ?, ? where not exists (select 1 from roles where system)
     on conflict (code) do nothing`,
    [id, at, at],
  );
  const [role] = await tx.execute<{ id: string }[]>('select id from roles where system order by created_at, id limit 1');
  return role.id;
}
