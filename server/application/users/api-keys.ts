// API keys (SPEC §2): agent keys managed with users:read/write; human keys self-service from a password session.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { EntityManager } from '@mikro-orm/postgresql';
import { apiKeyPrefix, formatApiKey, hashApiKey } from '../../domain/api-key.js';
import { ok, refuse, validationFailed, type Refusal, type Result } from '../../domain/errors.js';
import { coversAll } from '../../domain/permissions.js';
import { authorize, callerGrants } from '../authorize.js';
import { parseInput } from '../validate.js';
import type { Ctx, Deps } from '../context.js';
import { createdAtIdKey, cursorSchema, decodeCursor, limitParam, pageLimit, toPage, type Page } from '../paging.js';
import { userNotFound } from './users.js';
import { idOf, nameSchema } from '../schemas.js';
import { mayActOnUser } from './act-on-user.js';
import { reader, transact } from '../../persistence/transaction.js';
import { lockIdentityChanges, userGrants } from '../../persistence/role-graph.js';
import { grantSchema } from '../roles/roles.js';
import { endOverlapBy, insertKey, keyRowById, keyRowsOf, lockUserKey, revokeKey, searchKeyRows, type KeyRow } from '../../persistence/api-keys.js';
import { shareCredentialOwner, userSummary } from '../../persistence/users.js';
import { fieldsOf, keyTarget, recordAudit } from '../audit/audit.js';

export interface ApiKeyMetadata {
  id: string;
  name: string;
  prefix: string;
  /** null: all of the user's permissions; otherwise the key carries the user's ∩ these */
  permissions: string[] | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  /** the key this one replaced by rotation */
  rotatedFromId: string | null;
}
export type CreatedApiKey = ApiKeyMetadata & { key: string };

/** The key metadata and the creation answer as schemas, for the OpenAPI document. */
export const apiKeyOutput = z
  .object({
    id: z.string().describe('The key id (a UUID); not the key.'),
    name: z.string().describe('What the key is for, 1-200 characters.'),
    prefix: z.string().describe('The first characters of the key, to recognise it.'),
    permissions: z
      .array(z.string())
      .nullable()
      .describe("null: all of the user's permissions; otherwise a request with this key carries the user's effective permissions ∩ this list"),
    createdAt: z.string().describe('When it was created (ISO 8601).'),
    lastUsedAt: z.string().nullable().describe('When it last authenticated a request (ISO 8601); null: never.'),
    expiresAt: z.string().nullable().describe('When it stops working (ISO 8601); null: never.'),
    revokedAt: z.string().nullable().describe('When it was revoked (ISO 8601); null: not revoked.'),
    rotatedFromId: z.string().nullable().describe('the key this one replaced by rotation'),
  })
  .describe("An API key's metadata: never the key or its hash.") satisfies z.ZodType<ApiKeyMetadata>;
export const createdApiKeyOutput = apiKeyOutput
  .extend({
    key: z
      .string()
      .optional()
      .describe(
        'The plaintext key, in the first answer only: store it now. Absent on an idempotent replay (`Idempotent-Replayed: true`), which never returns the secret (SPEC §12).',
      ),
  })
  .describe('A new API key: its metadata and, in the first answer only, the key.') satisfies z.ZodType<ApiKeyMetadata & { key?: string }>;

export const createApiKeyInput = z.strictObject({
  name: nameSchema.describe('What the key is for, 1-200 characters (trimmed).'),
  expiresAt: z
    .preprocess((v) => (v instanceof Date ? v.toISOString() : v), z.iso.datetime({ offset: true }))
    .transform((s) => new Date(s))
    .nullish()
    .describe('When it stops working: an ISO 8601 instant with offset, in the future; omitted or null: never.'),
  permissions: z
    .array(grantSchema)
    .max(100)
    .transform((ps) => [...new Set(ps)])
    .nullish()
    .describe("Narrow the key to these permissions (each one the user holds); omitted or null: all of the user's, now and later"),
});
export const listApiKeysInput = z.strictObject({ limit: pageLimit, cursor: cursorSchema });

/** The admin app's global search (issue 36's ⌘K) over every user's keys: one short list, no paging. */
export const searchApiKeysInput = z.strictObject({
  q: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .describe('The start of a key as shown (its prefix, `mk_…`; case-sensitive, as a key is), a part of its name (any case), or its id.'),
  limit: limitParam(20, 5, 'At most this many keys, 1-20; 5 when omitted.'),
});

export interface ApiKeyHit extends ApiKeyMetadata {
  user: { id: string; name: string; type: 'human' | 'agent' };
}

export const apiKeyHitOutput = apiKeyOutput
  .extend({
    user: z
      .object({
        id: z.string().describe("The user's id."),
        name: z.string().describe("The user's name."),
        type: z.enum(['human', 'agent']).describe('human or agent'),
      })
      .describe('The user whose key it is.'),
  })
  .describe('A key found by the search: its metadata (never the key or its hash) and whose it is.') satisfies z.ZodType<ApiKeyHit>;
export const apiKeyHitsOutput = z.object({ data: z.array(apiKeyHitOutput).describe('Live keys first, then newest first.') }).describe('Keys found.');
/** One week: long enough for any agent's redeploy, short enough that a leaked old key dies soon. */
const MAX_OVERLAP_SECONDS = 604_800;
export const rotateApiKeyInput = z
  .object({
    overlapSeconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_OVERLAP_SECONDS)
      .nullish()
      .transform((v) => v ?? 0)
      .describe('How long the old key keeps working, 0–604800 seconds; 0 (the default) stops it at once'),
  })
  .strict();

const isoOrNull = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

export function keyMetadata(r: KeyRow): ApiKeyMetadata {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    permissions: r.permissions,
    createdAt: new Date(r.created_at).toISOString(),
    lastUsedAt: isoOrNull(r.last_used_at),
    expiresAt: isoOrNull(r.expires_at),
    revokedAt: isoOrNull(r.revoked_at),
    rotatedFromId: r.rotated_from_id,
  };
}

export async function loadKeyMetadata(em: EntityManager, keyId: string): Promise<ApiKeyMetadata | null> {
  const row = await keyRowById(em, keyId);
  return row ? keyMetadata(row) : null;
}

interface KeySpec {
  name: string;
  expiresAt: Date | null;
  permissions: string[] | null;
  rotatedFromId?: string;
}

/** The creation input, checked (an expiry must lie in the future). */
function parseKeyInput(deps: Deps, input: unknown): Result<KeySpec> {
  const parsed = parseInput(createApiKeyInput, input);
  if (!parsed.ok) return parsed;
  const { name, expiresAt, permissions } = parsed.value;
  const now = deps.clock();
  if (expiresAt && expiresAt.getTime() <= now.getTime()) {
    return validationFailed([{ path: 'expiresAt', message: 'must be in the future', code: 'too_small', params: { min: now.toISOString() } }]);
  }
  return ok({ name, expiresAt: expiresAt ?? null, permissions: permissions ?? null });
}

/** A key's permissions must be ones its user holds when it is made (later role changes narrow it instead). */
function unheldPermissions(spec: KeySpec, ownerGrants: readonly string[]): Refusal | null {
  const missing = spec.permissions ? coversAll(ownerGrants, spec.permissions) : [];
  if (missing.length === 0) return null;
  return validationFailed([
    { path: 'permissions', message: `the user does not hold ${missing.join(', ')}`, code: 'not_held', params: { permissions: missing } },
  ]);
}

/** Mints a key for `userId`; the plaintext is in the answer only, never stored or logged. */
async function mint(deps: Deps, em: EntityManager, userId: string, v: KeySpec): Promise<CreatedApiKey> {
  const key = formatApiKey(randomBytes(32));
  const row = await insertKey(em, {
    id: deps.newId(),
    userId,
    name: v.name,
    prefix: apiKeyPrefix(key),
    keyHash: hashApiKey(key),
    createdAt: deps.clock(),
    expiresAt: v.expiresAt,
    permissions: v.permissions,
    rotatedFromId: v.rotatedFromId ?? null,
  });
  return { ...keyMetadata(row), key };
}

async function listFor(deps: Deps, em: EntityManager, userId: string, input: unknown): Promise<Result<Page<ApiKeyMetadata>>> {
  const parsed = parseInput(listApiKeysInput, input);
  if (!parsed.ok) return parsed;
  const { limit } = parsed.value;
  const after = parsed.value.cursor === undefined ? ok(undefined) : decodeCursor(deps, 'apiKeys', parsed.value.cursor, createdAtIdKey);
  if (!after.ok) return after;
  const rows = await keyRowsOf(em, userId, after.value, limit + 1);
  return ok(toPage(deps, 'apiKeys', rows, limit, (r) => [new Date(r.created_at).toISOString(), r.id], keyMetadata));
}

async function revokeFor(deps: Deps, em: EntityManager, ctx: Ctx, userId: string, keyId: string): Promise<Result<null>> {
  const id = idOf(keyId);
  if (!id) return refuse('not_found', `No API key ${keyId}.`);
  // Already revoked keeps its first revocation time: revoking is safe to retry (and audited once, when it happens).
  const now = deps.clock();
  const revoked = await revokeKey(em, userId, id, now);
  if (!revoked) return refuse('not_found', `No API key ${keyId} for this user.`);
  if (revoked.previous === null)
    await recordAudit(deps, em, ctx, {
      action: 'key.revoked',
      target: keyTarget(id, revoked.name),
      changes: { revokedAt: { from: null, to: now.toISOString() } },
    });
  return ok(null);
}

/** The audit entry of a key just minted for `userId` (`key.provisioned` by an administrator, `key.created` self-service). */
const keyCreated = (action: 'key.provisioned' | 'key.created', userId: string, k: CreatedApiKey) => ({
  action,
  target: keyTarget(k.id, k.name),
  changes: fieldsOf({ name: k.name, userId, expiresAt: k.expiresAt, permissions: k.permissions }),
});

/**
 * Rotation (SPEC §2): a new key with the old one's name, permissions and expiry, naming it in
 * `rotatedFromId`; the old key stops working after the overlap (at once for 0), or at its own expiry if sooner.
 */
async function rotateFor(deps: Deps, tx: EntityManager, ctx: Ctx, userId: string, keyId: string, overlapSeconds: number): Promise<Result<CreatedApiKey>> {
  const id = idOf(keyId);
  const old = id ? await lockUserKey(tx, userId, id) : null;
  if (!old) return refuse('not_found', `No API key ${keyId} for this user.`);
  const now = deps.clock();
  if (old.revokedAt) return refuse('not_applicable', 'The key is revoked; create a new key instead.');
  if (old.endsAt && old.endsAt.getTime() <= now.getTime()) return refuse('not_applicable', 'The key has expired; create a new key instead.');
  // The new key copies the old one's OWN expiry, not the end of an overlap a previous rotation gave it.
  const created = await mint(deps, tx, userId, { name: old.name, expiresAt: old.ownExpiresAt, permissions: old.permissions, rotatedFromId: old.id });
  const oldStops = new Date(now.getTime() + overlapSeconds * 1000);
  await endOverlapBy(tx, old.id, oldStops);
  await recordAudit(deps, tx, ctx, {
    action: 'key.rotated',
    target: keyTarget(old.id, old.name),
    changes: { rotatedToId: { from: null, to: created.id }, overlapSeconds: { from: null, to: overlapSeconds } },
  });
  return ok(created);
}

/**
 * The user whose keys an administrator reads or acts on: it exists and, when acting (provisioning, rotating,
 * revoking), the caller holds every permission it holds. Listing is reading, which SPEC §2 leaves open to
 * `users:read` whoever the user is. Provisioning also needs an active agent.
 */
async function keyOwner(em: EntityManager, ctx: Ctx, id: string, mustBeAgent: boolean, acting = true): Promise<string | Refusal> {
  const userId = idOf(id);
  if (!userId) return userNotFound(id);
  const user = await userSummary(em, userId);
  if (!user) return userNotFound(id);
  const escalation = acting ? await mayActOnUser(em, ctx.caller, userId) : null;
  if (escalation) return escalation;
  if (mustBeAgent && user.type !== 'agent') return refuse('not_an_agent', 'Keys are provisioned for agent users only; humans create their own.');
  if (mustBeAgent && user.status !== 'active') return refuse('not_applicable', 'The user is deactivated.');
  return userId;
}

/**
 * Locks the key owner's row against deactivation until the transaction commits (SPEC §5: no key comes back
 * on reactivation); a refusal when the user is no longer active, or `sessionId` (the caller's own session,
 * for self-service) has ended meanwhile.
 */
async function ownerStillActive(tx: EntityManager, userId: string, sessionId?: string | null): Promise<Refusal | null> {
  if (await shareCredentialOwner(tx, userId, sessionId)) return null;
  return sessionId
    ? refuse('unauthenticated', 'The session has ended (signed out, or the user was deactivated or changed its password).')
    : refuse('not_applicable', 'The user is deactivated.');
}

export async function provisionApiKey(deps: Deps, ctx: Ctx, userId: string, input: unknown): Promise<Result<CreatedApiKey>> {
  const denied = authorize(ctx, 'users.provisionApiKey');
  if (denied) return denied;
  const parsed = parseKeyInput(deps, input);
  if (!parsed.ok) return parsed;
  return transact(deps.orm, async (tx) => {
    await lockIdentityChanges(tx);
    const owner = await keyOwner(tx, ctx, userId, true);
    if (typeof owner !== 'string') return owner;
    const inactive = await ownerStillActive(tx, owner);
    if (inactive) return inactive;
    const unheld = unheldPermissions(parsed.value, await userGrants(tx, owner));
    if (unheld) return unheld;
    const created = await mint(deps, tx, owner, parsed.value);
    await recordAudit(deps, tx, ctx, keyCreated('key.provisioned', owner, created));
    return ok(created);
  });
}

export async function listUserApiKeys(deps: Deps, ctx: Ctx, userId: string, input: unknown): Promise<Result<Page<ApiKeyMetadata>>> {
  const denied = authorize(ctx, 'users.listApiKeys');
  if (denied) return denied;
  const em = reader(deps.orm);
  // Reading: not limited by the escalation rule (SPEC §2), so no mayActOnUser here.
  const owner = await keyOwner(em, ctx, userId, false, false);
  if (typeof owner !== 'string') return owner;
  return listFor(deps, em, owner, input);
}

/**
 * Keys of any user by prefix, name or id (users:read: reading any user's keys' metadata is not limited by the
 * escalation rule, SPEC §2). Metadata and owner only, never a key or its hash.
 */
export async function searchApiKeys(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<{ data: ApiKeyHit[] }>> {
  const denied = authorize(ctx, 'users.searchApiKeys');
  if (denied) return denied;
  const parsed = parseInput(searchApiKeysInput, input);
  if (!parsed.ok) return parsed;
  const { q, limit } = parsed.value;
  const rows = await searchKeyRows(reader(deps.orm), q, idOf(q), limit);
  return ok({ data: rows.map((r) => ({ ...keyMetadata(r), user: { id: r.user_id, name: r.user_name, type: r.user_type } })) });
}

export async function revokeUserApiKey(deps: Deps, ctx: Ctx, userId: string, keyId: string): Promise<Result<null>> {
  const denied = authorize(ctx, 'users.revokeApiKey');
  if (denied) return denied;
  return transact(deps.orm, async (tx) => {
    await lockIdentityChanges(tx);
    const owner = await keyOwner(tx, ctx, userId, false);
    if (typeof owner !== 'string') return owner;
    return revokeFor(deps, tx, ctx, owner, keyId);
  });
}

export async function rotateUserApiKey(deps: Deps, ctx: Ctx, userId: string, keyId: string, input: unknown): Promise<Result<CreatedApiKey>> {
  const denied = authorize(ctx, 'users.rotateApiKey');
  if (denied) return denied;
  const parsed = parseInput(rotateApiKeyInput, input);
  if (!parsed.ok) return parsed;
  return transact(deps.orm, async (tx) => {
    await lockIdentityChanges(tx);
    // As for provisioning: an active agent the caller may act on.
    const owner = await keyOwner(tx, ctx, userId, true);
    if (typeof owner !== 'string') return owner;
    const inactive = await ownerStillActive(tx, owner);
    if (inactive) return inactive;
    return rotateFor(deps, tx, ctx, owner, keyId, parsed.value.overlapSeconds);
  });
}

/** Self-service keys need a human's password session: a key cannot mint keys (SPEC §2). */
export function requirePasswordSession(ctx: Ctx): Refusal | null {
  const c = ctx.caller;
  if (c.kind === 'human' && c.authenticatedBy === 'session' && c.userId) return null;
  return refuse('session_required', 'This needs a human user signed in with a password session (not an API key).');
}

export async function listMyApiKeys(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<Page<ApiKeyMetadata>>> {
  const denied = authorize(ctx, 'me.listApiKeys') ?? requirePasswordSession(ctx);
  if (denied) return denied;
  return listFor(deps, reader(deps.orm), ctx.caller.userId!, input);
}

export async function createMyApiKey(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<CreatedApiKey>> {
  const denied = authorize(ctx, 'me.createApiKey') ?? requirePasswordSession(ctx);
  if (denied) return denied;
  const parsed = parseKeyInput(deps, input);
  if (!parsed.ok) return parsed;
  // A password session carries all of its user's grants.
  const unheld = unheldPermissions(parsed.value, callerGrants(ctx.caller));
  if (unheld) return unheld;
  return transact(deps.orm, async (tx) => {
    // The session was checked when the request began; a deactivation may have committed since.
    const ended = await ownerStillActive(tx, ctx.caller.userId!, ctx.caller.sessionId);
    if (ended) return ended;
    const created = await mint(deps, tx, ctx.caller.userId!, parsed.value);
    await recordAudit(deps, tx, ctx, keyCreated('key.created', ctx.caller.userId!, created));
    return ok(created);
  });
}

export async function revokeMyApiKey(deps: Deps, ctx: Ctx, keyId: string): Promise<Result<null>> {
  const denied = authorize(ctx, 'me.revokeApiKey') ?? requirePasswordSession(ctx);
  if (denied) return denied;
  return transact(deps.orm, (tx) => revokeFor(deps, tx, ctx, ctx.caller.userId!, keyId));
}

export async function rotateMyApiKey(deps: Deps, ctx: Ctx, keyId: string, input: unknown): Promise<Result<CreatedApiKey>> {
  const denied = authorize(ctx, 'me.rotateApiKey') ?? requirePasswordSession(ctx);
  if (denied) return denied;
  const parsed = parseInput(rotateApiKeyInput, input);
  if (!parsed.ok) return parsed;
  return transact(deps.orm, async (tx) => {
    const ended = await ownerStillActive(tx, ctx.caller.userId!, ctx.caller.sessionId);
    if (ended) return ended;
    return rotateFor(deps, tx, ctx, ctx.caller.userId!, keyId, parsed.value.overlapSeconds);
  });
}
