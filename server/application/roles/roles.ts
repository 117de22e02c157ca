// Role use cases (SPEC §2 Role, §5): hierarchical RBAC with no escalation and a protected last admin.
import { z } from 'zod';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isKnownGrant, KNOWN_GRANTS, PERMISSION_CATALOGUE } from '../../domain/permissions.js';
import { ok, refuse, validationFailed, type Result } from '../../domain/errors.js';
import { authorize } from '../authorize.js';
import { parseInput } from '../validate.js';
import type { Ctx, Deps } from '../context.js';
import { cursorSchema, decodeCursor, pageLimit, textKey, toPage, type Page } from '../paging.js';
import { idOf, nameSchema, uuidSchema } from '../schemas.js';
import { escalationRefusal, guardLastAdmin, roleEditRefusal } from '../users/transact.js';
import { isUniqueViolation, reader, transact } from '../../persistence/transaction.js';
import { lockIdentityChanges, roleAndInheritors, unionGrants, wouldCycle } from '../../persistence/role-graph.js';
import * as roles from '../../persistence/roles.js';
import { listRoleRows, loadRole, type RoleView } from './role.read.js';
import { diffFields, fieldsOf, recordAudit, roleTarget } from '../audit/audit.js';
import { expectedVersionOf, staleVersion } from '../versions.js';
import { lockRowVersion } from '../../persistence/row-versions.js';
import { boundedTotal, TOTAL_BOUND, type ListTotal } from '../list-total.js';

/** A catalogue permission, `<resource>:*` or `*`: what roles and key scopes are written in. */
export const grantSchema = z
  .string()
  .refine(isKnownGrant, { message: 'is not a known permission' })
  .meta({ enum: [...KNOWN_GRANTS] });
const dedupe = <T>(xs: T[]) => [...new Set(xs)];
const codeSchema = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9_.-]{0,62}$/, 'must be 1–63 lower-case letters, digits, `_`, `.` or `-`, starting with a letter');

export const listRolesInput = z.strictObject({
  q: z.string().trim().max(200).optional().describe('Matches the name or the code case-insensitively; at most 200 characters.'),
  limit: pageLimit,
  cursor: cursorSchema,
});
export const createRoleInput = z.strictObject({
  code: codeSchema.describe('A stable code, unique: 1-63 lower-case letters, digits, `_`, `.` or `-`, starting with a letter.'),
  name: nameSchema.describe('The display name, 1-200 characters (trimmed).'),
  permissions: z.array(grantSchema).max(100).transform(dedupe).describe('The permissions it grants (see GET /permissions); only ones you hold yourself.'),
  inherits: z
    .array(uuidSchema)
    .max(100)
    .transform(dedupe)
    .nullish()
    .transform((v) => v ?? [])
    .describe('Roles (UUIDs) whose permissions it also grants; none when omitted. No loops.'),
});
export const updateRoleInput = z
  .object({
    code: codeSchema.optional().describe('A new code: 1-63 lower-case letters, digits, `_`, `.` or `-`, starting with a letter.'),
    name: nameSchema.optional().describe('A new display name, 1-200 characters (trimmed).'),
    permissions: z
      .array(grantSchema)
      .max(100)
      .transform(dedupe)
      .optional()
      .describe('All the permissions it will grant, replacing the current ones; not for a system role.'),
    inherits: z
      .array(uuidSchema)
      .max(100)
      .transform(dedupe)
      .optional()
      .describe('All the roles (UUIDs) it will inherit, replacing the current ones. No loops.'),
    expectedVersion: expectedVersionOf('role'),
  })
  .strict();

/** The fields a role patch changes: `expectedVersion` is a precondition, not a change (never in the audit trail). */
const roleFields = ({ expectedVersion: _precondition, ...fields }: z.infer<typeof updateRoleInput>) => fields;

const notFound = (id: string) => refuse('not_found', `No role ${id}.`);

export async function listRoles(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<Page<RoleView>>> {
  const denied = authorize(ctx, 'roles.list');
  if (denied) return denied;
  const parsed = parseInput(listRolesInput, input);
  if (!parsed.ok) return parsed;
  const { limit, q } = parsed.value;
  const after = parsed.value.cursor === undefined ? ok(undefined) : decodeCursor(deps, 'roles', parsed.value.cursor, z.tuple([textKey]));
  if (!after.ok) return after;
  const rows = await listRoleRows(reader(deps.orm), after.value?.[0], limit + 1, q || undefined);
  return ok(
    toPage(
      deps,
      'roles',
      rows,
      limit,
      (r) => [r.code],
      (r) => r,
    ),
  );
}

export const countRolesInput = listRolesInput.pick({ q: true });

/** How many roles the list's search matches, exact up to TOTAL_BOUND (a count with a LIMIT). */
export async function countRoles(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<ListTotal>> {
  const denied = authorize(ctx, 'roles.count');
  if (denied) return denied;
  const parsed = parseInput(countRolesInput, input);
  if (!parsed.ok) return parsed;
  return ok(boundedTotal(await roles.countRoleRows(reader(deps.orm), parsed.value.q || undefined, TOTAL_BOUND)));
}

export async function getRole(deps: Deps, ctx: Ctx, id: string): Promise<Result<RoleView>> {
  const denied = authorize(ctx, 'roles.get');
  if (denied) return denied;
  const roleId = idOf(id);
  const role = roleId ? await loadRole(reader(deps.orm), roleId) : null;
  return role ? ok(role) : notFound(id);
}

export async function listPermissions(_deps: Deps, ctx: Ctx): Promise<Result<string[]>> {
  const denied = authorize(ctx, 'permissions.list');
  if (denied) return denied;
  return ok([...PERMISSION_CATALOGUE]);
}

/** Unknown inherited roles are a 400 on the `inherits` field (the body names them; they are not the resource). */
async function unknownInherits(tx: EntityManager, inherits: string[]) {
  const missing = await roles.unknownRoleIds(tx, inherits);
  return missing.length
    ? validationFailed([{ path: 'inherits', message: `unknown role(s): ${missing.join(', ')}`, code: 'not_found', params: { ids: missing } }])
    : null;
}

const codeTaken = () => refuse('code_taken', 'Another role already has this code.');

export async function createRole(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<RoleView>> {
  const denied = authorize(ctx, 'roles.create');
  if (denied) return denied;
  const parsed = parseInput(createRoleInput, input);
  if (!parsed.ok) return parsed;
  const { code, name, permissions, inherits } = parsed.value;
  const id = deps.newId();
  const now = deps.clock();
  try {
    return await transact(deps.orm, async (tx) => {
      await lockIdentityChanges(tx);
      const unknown = await unknownInherits(tx, inherits);
      if (unknown) return unknown;
      const escalation = escalationRefusal(ctx.caller, [...permissions, ...(await unionGrants(tx, inherits))]);
      if (escalation) return escalation;
      if (await roles.codeTaken(tx, code)) return codeTaken();
      await roles.insertRole(tx, { id, code, name, permissions, at: now });
      await roles.addInherits(tx, id, inherits);
      await recordAudit(deps, tx, ctx, { action: 'role.created', target: roleTarget(id, code), changes: fieldsOf({ code, name, permissions, inherits }) });
      return ok((await loadRole(tx, id))!);
    });
  } catch (err) {
    if (isUniqueViolation(err)) return codeTaken();
    throw err;
  }
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

export async function updateRole(deps: Deps, ctx: Ctx, id: string, input: unknown): Promise<Result<RoleView>> {
  const denied = authorize(ctx, 'roles.update');
  if (denied) return denied;
  const parsed = parseInput(updateRoleInput, input);
  if (!parsed.ok) return parsed;
  const roleId = idOf(id);
  if (!roleId) return notFound(id);
  const patch = parsed.value;
  try {
    return await transact(deps.orm, async (tx) => {
      await lockIdentityChanges(tx);
      const version = await lockRowVersion(tx, 'roles', roleId);
      const current = version === null ? null : await loadRole(tx, roleId);
      if (version === null || !current) return notFound(id);
      // SPEC §2: the edit acts on the holders of this role and of every role inheriting it, so the caller must
      // hold all they carry now (a rename too) and, checked after the write below, all they will carry.
      const reached = await roleAndInheritors(tx, roleId);
      const before = roleEditRefusal(ctx.caller, await unionGrants(tx, reached));
      if (before) return before;
      const stale = staleVersion('role', version, patch.expectedVersion);
      if (stale) return stale;
      const permissions = patch.permissions ?? current.permissions;
      const inherits = patch.inherits ?? current.inherits;
      // The code too: `users create-admin` and the first start find the role by it (issue 17, item 8).
      const recoded = patch.code !== undefined && patch.code !== current.code;
      if (current.system && (recoded || !sameSet(permissions, current.permissions) || !sameSet(inherits, current.inherits))) {
        return refuse('system_role', `The system role ${current.code} keeps its code, permissions and inherits.`);
      }
      const unknown = await unknownInherits(tx, inherits);
      if (unknown) return unknown;
      if (await wouldCycle(tx, roleId, inherits)) {
        return refuse('role_cycle', 'Role inheritance must not form a cycle.');
      }
      if (patch.permissions || patch.inherits) {
        const escalation = escalationRefusal(ctx.caller, [...permissions, ...(await unionGrants(tx, inherits))]);
        if (escalation) return escalation;
      }
      if (patch.code && patch.code !== current.code) {
        if (await roles.codeTaken(tx, patch.code, roleId)) return codeTaken();
      }
      // An edit that changes nothing writes nothing: the version and updatedAt stay (safe to retry).
      const renamed = patch.name !== undefined && patch.name !== current.name;
      if (!recoded && !renamed && sameSet(permissions, current.permissions) && sameSet(inherits, current.inherits)) return ok(current);
      let after: ReturnType<typeof roleEditRefusal> = null;
      const lastAdmin = await guardLastAdmin(tx, async () => {
        await roles.updateRoleRow(tx, roleId, { code: patch.code ?? current.code, name: patch.name ?? current.name, permissions }, deps.clock());
        if (patch.inherits) await roles.replaceInherits(tx, roleId, inherits);
        // Who inherits the role cannot change with its own edit (a cycle is refused above), so `reached` stands.
        after = roleEditRefusal(ctx.caller, await unionGrants(tx, reached));
      });
      // Either refusal rolls the write back.
      if (after) return after;
      if (lastAdmin) return lastAdmin;
      await recordAudit(deps, tx, ctx, {
        action: 'role.updated',
        target: roleTarget(roleId, patch.code ?? current.code),
        changes: diffFields(current, roleFields(patch)),
        ifChanged: true,
      });
      return ok((await loadRole(tx, roleId))!);
    });
  } catch (err) {
    if (isUniqueViolation(err)) return codeTaken();
    throw err;
  }
}

export async function deleteRole(deps: Deps, ctx: Ctx, id: string): Promise<Result<null>> {
  const denied = authorize(ctx, 'roles.delete');
  if (denied) return denied;
  const roleId = idOf(id);
  if (!roleId) return notFound(id);
  return transact(deps.orm, async (tx) => {
    await lockIdentityChanges(tx);
    const role = await roles.roleFields(tx, roleId);
    if (!role) return notFound(id);
    // Deleting acts on the role's holders as editing does (SPEC §2): 403 before the 409s, so a weaker caller
    // learns nothing about who holds it.
    const escalation = roleEditRefusal(ctx.caller, await unionGrants(tx, await roleAndInheritors(tx, roleId)));
    if (escalation) return escalation;
    if (role.system) return refuse('system_role', `The system role ${role.code} cannot be deleted.`);
    const use = await roles.roleUse(tx, roleId);
    if (use.users > 0 || use.roles > 0) {
      return refuse('role_in_use', `The role ${role.code} is assigned to ${use.users} user(s) and inherited by ${use.roles} role(s).`, {
        users: use.users,
        roles: use.roles,
      });
    }
    await roles.deleteRoleRow(tx, roleId);
    await recordAudit(deps, tx, ctx, {
      action: 'role.deleted',
      target: roleTarget(roleId, role.code),
      changes: fieldsOf({ code: role.code, name: role.name, permissions: role.permissions }, true),
    });
    return ok(null);
  });
}
