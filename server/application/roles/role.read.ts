// The role read shape (SPEC §2): `{ id, code, name, permissions, inherits, system, effectivePermissions }`.
import { z } from 'zod';
import type { EntityManager } from '@mikro-orm/postgresql';
import { expandGrants } from '../../domain/permissions.js';
import { roleGrants } from '../../persistence/role-graph.js';
import { roleLinksOfUsers, roleRowsAfterCode, roleRowsById, type RoleRow } from '../../persistence/roles.js';

export interface RoleView {
  id: string;
  code: string;
  name: string;
  permissions: string[];
  inherits: string[];
  system: boolean;
  /** catalogue permissions this role grants, its inherited roles included */
  effectivePermissions: string[];
  /** 1 on creation, +1 on every change (SPEC §2) */
  version: number;
}

/** RoleView as a schema, for the OpenAPI document. */
export const roleOutput = z
  .object({
    id: z.string().describe('The role id (a UUID).'),
    code: z.string().describe('The stable code, e.g. `admin`.'),
    name: z.string().describe('The display name.'),
    permissions: z.array(z.string()).describe('The permissions it grants itself.'),
    inherits: z.array(z.string()).describe('The ids of the roles it inherits from.'),
    system: z.boolean().describe('A system role: its permissions cannot change and it cannot be deleted.'),
    effectivePermissions: z.array(z.string()).describe('Everything it grants, inherited permissions included.'),
    version: z.number().int().describe('1 on creation, +1 on every change; send it back as expectedVersion'),
  })
  .describe('A named set of permissions, optionally inheriting other roles.') satisfies z.ZodType<RoleView>;

async function toViews(em: EntityManager, rows: RoleRow[]): Promise<RoleView[]> {
  const grants = await roleGrants(
    em,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    code: r.code,
    name: r.name,
    permissions: r.permissions ?? [],
    inherits: r.inherits ?? [],
    system: r.system,
    effectivePermissions: expandGrants(grants.get(r.id) ?? []),
    version: r.version,
  }));
}

/** Roles by id, in code order; unknown ids are simply absent. */
export async function loadRoles(em: EntityManager, ids: readonly string[]): Promise<RoleView[]> {
  if (ids.length === 0) return [];
  return toViews(em, await roleRowsById(em, ids));
}

export async function loadRole(em: EntityManager, id: string): Promise<RoleView | null> {
  const [role] = await loadRoles(em, [id]);
  return role ?? null;
}

/** One page of roles ordered by code, after `afterCode`. */
export async function listRoleRows(em: EntityManager, afterCode: string | undefined, take: number, q?: string): Promise<RoleView[]> {
  return toViews(em, await roleRowsAfterCode(em, afterCode, take, q));
}

/** The roles of each user, in code order. */
export async function rolesOfUsers(em: EntityManager, userIds: readonly string[]): Promise<Map<string, RoleView[]>> {
  const out = new Map<string, RoleView[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return out;
  const links = await roleLinksOfUsers(em, userIds);
  const roles = new Map((await loadRoles(em, [...new Set(links.map((l) => l.role_id))])).map((r) => [r.id, r]));
  for (const l of links) {
    const role = roles.get(l.role_id);
    if (role) out.get(l.user_id)!.push(role);
  }
  for (const list of out.values()) list.sort((a, b) => a.code.localeCompare(b.code));
  return out;
}
