// User use cases (SPEC §2 User, §5): humans and agents, roles, deactivation, admin password reset.
import { z } from 'zod';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ok, refuse, validationFailed, type Refusal, type Result } from '../../domain/errors.js';
import { hashPassword, PASSWORD_MAX, PASSWORD_MIN } from '../../auth/password.js';
import { authorize } from '../authorize.js';
import { parseInput } from '../validate.js';
import type { Ctx, Deps } from '../context.js';
import { lockIdentityChanges, unionGrants } from '../../persistence/role-graph.js';
import { createdAtIdKey, cursorSchema, decodeCursor, pageLimit, toPage, type Page } from '../paging.js';
import { idOf, nameSchema, uuidSchema } from '../schemas.js';
import { escalationRefusal, guardLastAdmin } from './transact.js';
import { isUniqueViolation, reader, transact } from '../../persistence/transaction.js';
import * as users from '../../persistence/users.js';
import { revokeSessionsOf } from '../../persistence/sessions.js';
import { revokeKeysOf } from '../../persistence/api-keys.js';
import { revokeGrantsOf } from '../../persistence/oauth-store.js';
import { shareActorType } from '../../persistence/actors.js';
import { unknownRoleIds } from '../../persistence/roles.js';
import { loadUser, toUserViews, type UserView } from './user.read.js';
import { mayActOnUser } from './act-on-user.js';
import { diffFields, fieldsOf, recordAudit, userTarget } from '../audit/audit.js';
import { expectedVersionOf, staleVersion } from '../versions.js';
import { lockRowVersion } from '../../persistence/row-versions.js';
import { boundedTotal, TOTAL_BOUND, type ListTotal } from '../list-total.js';

const dedupe = <T>(xs: T[]) => [...new Set(xs)];
export const emailSchema = z.string().trim().toLowerCase().pipe(z.email().max(320)).meta({ format: 'email', maxLength: 320 });
export const passwordSchema = z.string().min(PASSWORD_MIN).max(PASSWORD_MAX);
const roleIdsSchema = z.array(uuidSchema).max(100).transform(dedupe);

export const createUserInput = z
  .strictObject({
    type: z
      .enum(['human', 'agent'])
      .nullish()
      .transform((t) => t ?? 'human')
      .describe('human (signs in with a password) or agent (calls with API keys); human when omitted. Cannot change later.'),
    email: emailSchema.describe('The email, unique among users (stored lower-case).'),
    name: nameSchema.describe('The display name, 1-200 characters (trimmed).'),
    password: passwordSchema.nullish().describe('Required for a human, refused for an agent.'),
    linkedActorId: uuidSchema.nullish().describe('Agents only: the actor of type agent this user acts as (a UUID).'),
    roleIds: roleIdsSchema
      .nullish()
      .transform((v) => v ?? [])
      .describe('The roles to grant (UUIDs); only permissions you hold yourself. None when omitted.'),
  })
  .superRefine((v, c) => {
    if (v.type === 'agent' && v.password != null) c.addIssue({ code: 'custom', path: ['password'], message: 'agents have no password; they use API keys' });
    if (v.type === 'human' && v.password == null) c.addIssue({ code: 'custom', path: ['password'], message: 'is required for a human user' });
    if (v.type === 'human' && v.linkedActorId != null)
      c.addIssue({ code: 'custom', path: ['linkedActorId'], message: 'only agent users can be linked to an actor' });
  });

export const listUsersInput = z.strictObject({
  type: z.enum(['human', 'agent']).optional().describe('Only humans or only agents.'),
  status: z.enum(['active', 'deactivated']).optional().describe('Only active or only deactivated users.'),
  q: z.string().trim().max(200).optional().describe('Matches name or email case-insensitively; at most 200 characters.'),
  limit: pageLimit,
  cursor: cursorSchema,
});

export const updateUserInput = z
  .object({
    name: nameSchema.optional().describe('The new display name, 1-200 characters (trimmed).'),
    email: emailSchema.optional().describe('The new email, unique among users.'),
    linkedActorId: uuidSchema.nullable().optional().describe('Agents only: the actor of type agent this user acts as, or null to unlink.'),
    expectedVersion: expectedVersionOf('user'),
  })
  .strict();
export const setUserRolesInput = z.strictObject({
  roleIds: roleIdsSchema.describe('All the roles the user will hold (UUIDs), replacing the current ones; only permissions you hold yourself.'),
  expectedVersion: expectedVersionOf('user'),
});
export const resetPasswordInput = z.strictObject({ password: passwordSchema.describe('The new password.') });

/** The fields a user patch changes: `expectedVersion` is a precondition, not a change (never in the audit trail). */
const profileFields = ({ expectedVersion: _precondition, ...fields }: z.infer<typeof updateUserInput>) => fields;

export const userNotFound = (id: string) => refuse('user_not_found', `No user ${id}.`);
const emailTaken = (email: string) => refuse('email_taken', `A user with the email ${email} exists already.`);

async function checkLinkedActor(tx: EntityManager, actorId: string): Promise<Refusal | null> {
  const type = await shareActorType(tx, actorId);
  if (type === null) return refuse('actor_not_found', `No actor ${actorId}.`);
  if (type !== 'agent') return refuse('actor_not_agent_type', `Actor ${actorId} is of type ${type}, not agent.`);
  return null;
}

async function checkRoles(tx: EntityManager, roleIds: string[]): Promise<Refusal | null> {
  const missing = await unknownRoleIds(tx, roleIds);
  return missing.length
    ? validationFailed([{ path: 'roleIds', message: `unknown role(s): ${missing.join(', ')}`, code: 'not_found', params: { ids: missing } }])
    : null;
}

export async function createUser(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<UserView>> {
  const denied = authorize(ctx, 'users.create');
  if (denied) return denied;
  const parsed = parseInput(createUserInput, input);
  if (!parsed.ok) return parsed;
  const v = parsed.value;
  // argon2 is slow: hash before the transaction, never inside it.
  const hash = v.password ? await hashPassword(v.password, deps.config.passwordHashing) : null;
  const id = deps.newId();
  const now = deps.clock();
  try {
    return await transact(deps.orm, async (tx) => {
      await lockIdentityChanges(tx);
      if (await users.emailTaken(tx, v.email)) return emailTaken(v.email);
      if (v.linkedActorId) {
        const bad = await checkLinkedActor(tx, v.linkedActorId);
        if (bad) return bad;
      }
      const badRoles = await checkRoles(tx, v.roleIds);
      if (badRoles) return badRoles;
      const escalation = escalationRefusal(ctx.caller, await unionGrants(tx, v.roleIds));
      if (escalation) return escalation;
      await users.insertUser(tx, { id, type: v.type, email: v.email, name: v.name, passwordHash: hash, linkedActorId: v.linkedActorId ?? null, at: now });
      await users.addUserRoles(tx, id, v.roleIds);
      await recordAudit(deps, tx, ctx, {
        action: 'user.created',
        target: userTarget(id, v.email),
        changes: fieldsOf({ type: v.type, email: v.email, name: v.name, linkedActorId: v.linkedActorId, roleIds: v.roleIds }),
      });
      return ok((await loadUser(tx, id))!);
    });
  } catch (err) {
    if (isUniqueViolation(err)) return emailTaken(v.email);
    throw err;
  }
}

export async function getUser(deps: Deps, ctx: Ctx, id: string): Promise<Result<UserView>> {
  const denied = authorize(ctx, 'users.get');
  if (denied) return denied;
  const userId = idOf(id);
  const user = userId ? await loadUser(reader(deps.orm), userId) : null;
  return user ? ok(user) : userNotFound(id);
}

export async function listUsers(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<Page<UserView>>> {
  const denied = authorize(ctx, 'users.list');
  if (denied) return denied;
  const parsed = parseInput(listUsersInput, input);
  if (!parsed.ok) return parsed;
  const { type, status, q, limit, cursor } = parsed.value;
  const after = cursor ? decodeCursor(deps, 'users', cursor, createdAtIdKey) : ok(undefined);
  if (!after.ok) return after;
  const em = reader(deps.orm);
  const rows = await users.listUserRows(em, { type, status, q, after: after.value }, limit + 1);
  const views = await toUserViews(em, rows);
  return ok(
    toPage(
      deps,
      'users',
      views,
      limit,
      (u) => [u.createdAt, u.id],
      (u) => u,
    ),
  );
}

export const countUsersInput = listUsersInput.pick({ type: true, status: true, q: true });

/** How many users the list's filters match, exact up to TOTAL_BOUND (a count with a LIMIT). */
export async function countUsers(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<ListTotal>> {
  const denied = authorize(ctx, 'users.count');
  if (denied) return denied;
  const parsed = parseInput(countUsersInput, input);
  if (!parsed.ok) return parsed;
  return ok(boundedTotal(await users.countUserRows(reader(deps.orm), parsed.value, TOTAL_BOUND)));
}

export async function updateUser(deps: Deps, ctx: Ctx, id: string, input: unknown): Promise<Result<UserView>> {
  const denied = authorize(ctx, 'users.update');
  if (denied) return denied;
  if (input && typeof input === 'object' && 'type' in input) {
    return validationFailed([{ path: 'type', message: 'is chosen at creation and cannot change', code: 'immutable', params: {} }]);
  }
  const parsed = parseInput(updateUserInput, input);
  if (!parsed.ok) return parsed;
  const userId = idOf(id);
  if (!userId) return userNotFound(id);
  const patch = parsed.value;
  try {
    const result = await transact(deps.orm, async (tx) => {
      await lockIdentityChanges(tx);
      const version = await lockRowVersion(tx, 'users', userId);
      const current = version === null ? null : await loadUser(tx, userId);
      if (version === null || !current) return userNotFound(id);
      const escalation = await mayActOnUser(tx, ctx.caller, userId);
      if (escalation) return escalation;
      const stale = staleVersion('user', version, patch.expectedVersion);
      if (stale) return stale;
      if (patch.linkedActorId !== undefined && patch.linkedActorId !== null && current.type !== 'agent') {
        return validationFailed([{ path: 'linkedActorId', message: 'only agent users can be linked to an actor', code: 'invalid_value', params: {} }]);
      }
      if (patch.linkedActorId) {
        const bad = await checkLinkedActor(tx, patch.linkedActorId);
        if (bad) return bad;
      }
      if (patch.email && patch.email !== current.email) {
        if (await users.emailTaken(tx, patch.email, userId)) return emailTaken(patch.email);
      }
      const next = {
        name: patch.name ?? current.name,
        email: patch.email ?? current.email,
        linkedActorId: patch.linkedActorId === undefined ? current.linkedActorId : patch.linkedActorId,
      };
      // A patch that changes nothing writes nothing: the version and updatedAt stay (safe to retry).
      if (next.name === current.name && next.email === current.email && next.linkedActorId === current.linkedActorId) return ok(current);
      await users.updateUserProfile(tx, userId, next, deps.clock());
      await recordAudit(deps, tx, ctx, {
        action: 'user.updated',
        target: userTarget(userId, patch.email ?? current.email),
        changes: diffFields(current, profileFields(patch)),
        ifChanged: true,
      });
      return ok((await loadUser(tx, userId))!);
    });
    // a new name: the tensions this user leads take it in the background once it commits (Migration20261129160000)
    if (result.ok && patch.name !== undefined) deps.partyNames.renamed();
    return result;
  } catch (err) {
    if (isUniqueViolation(err)) return emailTaken(patch.email ?? '');
    throw err;
  }
}

/** Deactivates the user and revokes every session and key it has, unless it is the last active `*` holder. */
export async function deactivateUser(deps: Deps, ctx: Ctx, id: string): Promise<Result<UserView>> {
  const denied = authorize(ctx, 'users.deactivate');
  if (denied) return denied;
  const userId = idOf(id);
  if (!userId) return userNotFound(id);
  const now = deps.clock();
  return transact(deps.orm, async (tx) => {
    await lockIdentityChanges(tx);
    const user = await users.lockUserStatus(tx, userId);
    if (!user) return userNotFound(id);
    const escalation = await mayActOnUser(tx, ctx.caller, userId);
    if (escalation) return escalation;
    const lastAdmin = await guardLastAdmin(tx, async () => {
      await users.markDeactivated(tx, userId, now);
      await revokeSessionsOf(tx, userId, now);
      await revokeKeysOf(tx, userId, now);
      await revokeGrantsOf(tx, userId);
    });
    if (lastAdmin) return lastAdmin;
    await recordAudit(deps, tx, ctx, {
      action: 'user.deactivated',
      target: userTarget(userId, user.email),
      changes: diffFields(user, { status: 'deactivated' }),
      ifChanged: true,
    });
    return ok((await loadUser(tx, userId))!);
  });
}

/**
 * Makes a deactivated user active again (SPEC §5). Nothing it lost comes back: its sessions and keys stay
 * revoked, so a human signs in again and an agent needs a new key. Reactivating an active user changes
 * nothing (200 with the user as it is): safe to retry. The escalation rule applies as for deactivation.
 */
export async function reactivateUser(deps: Deps, ctx: Ctx, id: string): Promise<Result<UserView>> {
  const denied = authorize(ctx, 'users.reactivate');
  if (denied) return denied;
  const userId = idOf(id);
  if (!userId) return userNotFound(id);
  return transact(deps.orm, async (tx) => {
    await lockIdentityChanges(tx);
    if ((await lockRowVersion(tx, 'users', userId)) === null) return userNotFound(id);
    const escalation = await mayActOnUser(tx, ctx.caller, userId);
    if (escalation) return escalation;
    const reactivated = await users.markReactivated(tx, userId, deps.clock());
    // only a real change is recorded: reactivating an active user writes nothing
    if (reactivated !== null) {
      await recordAudit(deps, tx, ctx, {
        action: 'user.reactivated',
        target: userTarget(userId, reactivated),
        changes: { status: { from: 'deactivated', to: 'active' } },
      });
    }
    return ok((await loadUser(tx, userId))!);
  });
}

/**
 * Replaces the user's roles. The caller must hold the user's current permissions (removing is acting on
 * the user) and everything the added roles grant.
 */
export async function setUserRoles(deps: Deps, ctx: Ctx, id: string, input: unknown): Promise<Result<UserView>> {
  const denied = authorize(ctx, 'users.setRoles');
  if (denied) return denied;
  const parsed = parseInput(setUserRolesInput, input);
  if (!parsed.ok) return parsed;
  const userId = idOf(id);
  if (!userId) return userNotFound(id);
  const { roleIds } = parsed.value;
  return transact(deps.orm, async (tx) => {
    await lockIdentityChanges(tx);
    const version = await lockRowVersion(tx, 'users', userId);
    if (version === null) return userNotFound(id);
    const user = (await users.userSummary(tx, userId))!;
    const actOn = await mayActOnUser(tx, ctx.caller, userId);
    if (actOn) return actOn;
    const stale = staleVersion('user', version, parsed.value.expectedVersion);
    if (stale) return stale;
    const badRoles = await checkRoles(tx, roleIds);
    if (badRoles) return badRoles;
    const current = await users.roleIdsOfUser(tx, userId);
    const added = roleIds.filter((r) => !current.includes(r));
    const escalation = escalationRefusal(ctx.caller, await unionGrants(tx, added));
    if (escalation) return escalation;
    // The same set again changes nothing; any other set is a change to the user (its version moves).
    if (added.length === 0 && current.length === roleIds.length) return ok((await loadUser(tx, userId))!);
    const lastAdmin = await guardLastAdmin(tx, async () => {
      await users.replaceUserRoles(tx, userId, roleIds);
      await users.touchUser(tx, userId, deps.clock());
    });
    if (lastAdmin) return lastAdmin;
    await recordAudit(deps, tx, ctx, {
      action: 'user.roles_set',
      target: userTarget(userId, user.email),
      changes: diffFields({ roleIds: current }, { roleIds }),
      ifChanged: true,
    });
    return ok((await loadUser(tx, userId))!);
  });
}

/** Admin reset of a human's password (`POST /users/:id/password`); revokes all that user's sessions. */
export async function resetUserPassword(deps: Deps, ctx: Ctx, id: string, input: unknown): Promise<Result<null>> {
  const denied = authorize(ctx, 'users.resetPassword');
  if (denied) return denied;
  const parsed = parseInput(resetPasswordInput, input);
  if (!parsed.ok) return parsed;
  const userId = idOf(id);
  if (!userId) return userNotFound(id);
  const em = reader(deps.orm);
  const user = await users.userSummary(em, userId);
  if (!user) return userNotFound(id);
  // Checked before the slow hash, and again under the lock in case the target gained permissions meanwhile.
  const early = await mayActOnUser(em, ctx.caller, userId);
  if (early) return early;
  if (user.type !== 'human') return refuse('not_applicable', 'Agent users have no password; they use API keys.');
  const hash = await hashPassword(parsed.value.password, deps.config.passwordHashing);
  const now = deps.clock();
  return transact(deps.orm, async (tx) => {
    await lockIdentityChanges(tx);
    const escalation = await mayActOnUser(tx, ctx.caller, userId);
    if (escalation) return escalation;
    await users.setPasswordHash(tx, userId, hash, now);
    await revokeSessionsOf(tx, userId, now);
    await recordAudit(deps, tx, ctx, { action: 'user.password_reset', target: userTarget(userId, user.email) });
    return ok(null);
  });
}
