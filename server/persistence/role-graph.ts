// The one place effective grants are computed: a recursive walk of `role_inherits` (SPEC §2, Role); a
// user's, in `market_user_grants`, the database function of the same walk.
// Authentication, /auth/me, role reads, escalation and last-admin checks all go through here.
import type { EntityManager } from '@mikro-orm/postgresql';

/** A PostgreSQL array literal for `?::uuid[]` / `?::text[]` parameters (values are UUIDs or catalogue grants). */
export function pgArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

/**
 * The effective grants (text[]) of the user whose id is the SQL expression `userId`: the migration's
 * `market_user_grants` (migrations/Migration20261125000000_user_grants_function.ts), the recursive walk
 * of `role_inherits` as a PL/pgSQL function, so each connection plans it once instead of on every
 * request (issue 18). It reads with its caller's snapshot, like the subquery it replaced.
 */
export function userGrantsSql(userId: string): string {
  return `market_user_grants(${userId})`;
}

/** Effective grants of each given role (its own ∪ everything it inherits, transitively). */
export async function roleGrants(em: EntityManager, roleIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(roleIds.map((id) => [id, []]));
  if (roleIds.length === 0) return out;
  const rows = await em.execute<{ id: string; grants: string[] | null }[]>(
    `with recursive closure(root, role_id) as (
       select id, id from roles where id = any(?::uuid[])
       union
       select c.root, ri.inherited_role_id from role_inherits ri join closure c on ri.role_id = c.role_id
     )
     select c.root as id, array_agg(distinct g order by g) as grants
     from closure c join roles r on r.id = c.role_id cross join unnest(r.permissions) g
     group by c.root`,
    [pgArray(roleIds)],
  );
  for (const row of rows) out.set(row.id, row.grants ?? []);
  return out;
}

/** The union of the effective grants of several roles (what a user holding them all would hold). */
export async function unionGrants(em: EntityManager, roleIds: readonly string[]): Promise<string[]> {
  const map = await roleGrants(em, roleIds);
  return [...new Set([...map.values()].flat())];
}

/** Effective grants of one user. */
export async function userGrants(em: EntityManager, userId: string): Promise<string[]> {
  const [row] = await em.execute<{ grants: string[] | null }[]>(`select ${userGrantsSql('?::uuid')} as grants`, [userId]);
  return row?.grants ?? [];
}

/**
 * The role and every role that inherits it, transitively: the roles whose effective grants an edit of
 * `roleId` changes (editing a role acts on everyone holding it or a role above it, SPEC §2).
 */
export async function roleAndInheritors(em: EntityManager, roleId: string): Promise<string[]> {
  const rows = await em.execute<{ role_id: string }[]>(
    `with recursive up(role_id) as (
       select ?::uuid
       union
       select ri.role_id from role_inherits ri join up on ri.inherited_role_id = up.role_id
     )
     select role_id from up`,
    [roleId],
  );
  return rows.map((r) => r.role_id);
}

/** Would `roleId` inheriting `inherits` close a cycle? True when `roleId` is reachable from any of them. */
export async function wouldCycle(em: EntityManager, roleId: string, inherits: readonly string[]): Promise<boolean> {
  if (inherits.includes(roleId)) return true;
  if (inherits.length === 0) return false;
  const [row] = await em.execute(
    `with recursive reach(role_id) as (
       select unnest(?::uuid[])
       union
       select ri.inherited_role_id from role_inherits ri join reach on ri.role_id = reach.role_id
     )
     select exists (select 1 from reach where role_id = ?) as cycle`,
    [pgArray(inherits), roleId],
  );
  return Boolean(row?.cycle);
}

/** How many active humans effectively hold `*` (agents never count: no agent can hold an admin session). */
export async function countHumanStarHolders(em: EntityManager): Promise<number> {
  const [row] = await em.execute<{ n: number }[]>(
    `select count(*)::int as n from users u
     where u.type = 'human' and u.status = 'active' and ${userGrantsSql('u.id')} @> array['*']::text[]`,
  );
  return row?.n ?? 0;
}

// Every change that can take `*` away from someone (role edits, role assignment, deactivation) takes
// this lock first, so two concurrent changes cannot each leave "one other admin" and together none.
const IDENTITY_LOCK = 7_301_002;

export async function lockIdentityChanges(tx: EntityManager): Promise<void> {
  await tx.execute('select pg_advisory_xact_lock(?)', [IDENTITY_LOCK]);
}
