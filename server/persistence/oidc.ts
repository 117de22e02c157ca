// The SQL of single sign-on (SPEC §16): who an email is, and the role assignments the role mapping made
// (`user_roles.source = 'oidc'`), kept apart from those given by hand (`manual`).
import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from './role-graph.js';

export interface SsoCandidate {
  id: string;
  type: 'human' | 'agent';
  status: 'active' | 'deactivated';
  email: string;
  /** 'oidc' when single sign-on created the user: its mapped roles follow the claim */
  provisioned_by: string | null;
}

export async function ssoCandidateByEmail(em: EntityManager, email: string): Promise<SsoCandidate | null> {
  const [row] = await em.execute<SsoCandidate[]>('select id, type, status, email, provisioned_by from users where email = ?', [email]);
  return row ?? null;
}

export async function markProvisioned(tx: EntityManager, userId: string): Promise<void> {
  await tx.execute(`update users set provisioned_by = 'oidc' where id = ?`, [userId]);
}

/** The ids of the roles with these codes (unknown codes are absent). */
export async function roleIdsByCodes(em: EntityManager, codes: readonly string[]): Promise<Map<string, string>> {
  if (codes.length === 0) return new Map();
  const rows = await em.execute<{ id: string; code: string }[]>('select id, code from roles where code = any(?::text[])', [pgArray(codes)]);
  return new Map(rows.map((r) => [r.code, r.id]));
}

/** The role ids the mapping assigned to the user (not those given by hand). */
export async function mappedRoleIds(em: EntityManager, userId: string): Promise<string[]> {
  const rows = await em.execute<{ role_id: string }[]>(`select role_id from user_roles where user_id = ? and source = 'oidc'`, [userId]);
  return rows.map((r) => r.role_id);
}

/** Assigns roles as the mapping's; a role the user already holds by hand stays hand-given. Returns those added. */
export async function addMappedRoles(tx: EntityManager, userId: string, roleIds: readonly string[]): Promise<string[]> {
  if (roleIds.length === 0) return [];
  const rows = await tx.execute<{ role_id: string }[]>(
    `insert into user_roles (user_id, role_id, source) select ?, r, 'oidc' from unnest(?::uuid[]) as r
     on conflict do nothing returning role_id`,
    [userId, pgArray(roleIds)],
  );
  return rows.map((r) => r.role_id);
}

/** Removes the mapping's assignments of these roles; hand-given ones are untouched. */
export async function removeMappedRoles(tx: EntityManager, userId: string, roleIds: readonly string[]): Promise<void> {
  if (roleIds.length === 0) return;
  await tx.execute(`delete from user_roles where user_id = ? and source = 'oidc' and role_id = any(?::uuid[])`, [userId, pgArray(roleIds)]);
}
