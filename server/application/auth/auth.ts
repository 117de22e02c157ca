// Sign-in, sign-out, who am I, and self-service password change (SPEC §5, §6).
import { z } from 'zod';
import { expandGrants } from '../../domain/permissions.js';
import { ok, refuse, validationFailed, type Result } from '../../domain/errors.js';
import { dummyHash, hashPassword, verifyPassword } from '../../auth/password.js';
import { signSessionToken } from '../../auth/session-token.js';
import { authenticateSession } from '../../auth/authenticate.js';
import { authorize, callerGrants } from '../authorize.js';
import { parseInput } from '../validate.js';
import type { Ctx, Deps, Via } from '../context.js';
import { loadUser, userOutput, type UserView } from '../users/user.read.js';
import { passwordSchema } from '../users/users.js';
import { apiKeyOutput, loadKeyMetadata, requirePasswordSession, type ApiKeyMetadata } from '../users/api-keys.js';
import { roleOutput, type RoleView } from '../roles/role.read.js';
import { reader, transact } from '../../persistence/transaction.js';
import { credentialsByEmail, credentialsById, setPasswordHash, shareCredentialOwner } from '../../persistence/users.js';
import { insertSession, revokeSession, revokeSessionsOf } from '../../persistence/sessions.js';
import { clearPasswordAttempts, reservePasswordAttempt } from './throttle.js';
import { recordAudit, userTarget } from '../audit/audit.js';

export const loginInput = z.strictObject({
  // Deliberately loose: any malformed email is just another wrong credential.
  email: z.string().trim().toLowerCase().min(1).max(320).describe("The human user's email (case-insensitive)."),
  password: z.string().min(1).max(1024).describe('Their password.'),
});
export const changePasswordInput = z.strictObject({
  currentPassword: z.string().min(1).max(1024).describe('My password now, to prove it is me.'),
  newPassword: passwordSchema.describe('The new password.'),
});

/** An anonymous request: who is asking from where (the throttle counts per client address). */
export interface AnonCtx {
  via: Via;
  requestId: string;
  client: string;
}

export interface LoginResult {
  user: UserView;
  sessionId: string;
  /** the session cookie's value */
  token: string;
  maxAgeMs: number;
}

/** The audit context of a sign-in attempt: nobody is signed in yet. */
const anonymous = (actx: AnonCtx) => ({ caller: null, via: actx.via, requestId: actx.requestId, clientAddress: actx.client });

const INVALID = () => refuse('invalid_credentials', 'The email or password is wrong, or the account cannot sign in.');

export async function login(deps: Deps, actx: AnonCtx, input: unknown): Promise<Result<LoginResult>> {
  const parsed = parseInput(loginInput, input);
  if (!parsed.ok) return parsed;
  const { email, password } = parsed.value;
  const throttled = await reservePasswordAttempt(deps, email, actx.client);
  if (throttled) {
    deps.metrics.rateLimited('login');
    // Recorded apart from auth.login_failed (no password was checked), on the email as typed, by nobody: the
    // throttle answers the same for unknown emails, so the entry tells nothing about the account (docs/audit.md).
    await recordAudit(deps, reader(deps.orm), anonymous(actx), { action: 'auth.login_throttled', target: userTarget(null, email) });
    return throttled;
  }

  const em = reader(deps.orm);
  const user = await credentialsByEmail(em, email);
  const eligible = user && user.type === 'human' && user.status === 'active' && user.passwordHash;
  // Verify against a real hash either way, outside any transaction, so every refusal costs the same.
  const verified = await verifyPassword(eligible ? user.passwordHash! : await dummyHash(), password);
  // A refusal keeps the reserved attempt as the failure it was.
  const refused = async () => {
    deps.metrics.loginFailure();
    // One entry for every reason (unknown email, wrong password, agent, deactivated): by nobody, on the email as
    // typed, no user id, so the trail cannot tell an outsider whether the account exists. Throttled attempts
    // (429 above) are auth.login_throttled.
    await recordAudit(deps, em, anonymous(actx), { action: 'auth.login_failed', target: userTarget(null, email) });
    return INVALID();
  };
  if (!eligible || !verified) return refused();

  const now = deps.clock();
  const sessionId = deps.newId();
  const expiresAt = new Date(now.getTime() + deps.config.sessionTtlMs);
  const signedIn = await transact(deps.orm, async (tx) => {
    // The user was read before the slow verify; a deactivation may have committed since. The share lock keeps
    // one from committing until this session is in, so it revokes it (SPEC §5: none comes back on reactivation).
    const owner = await shareCredentialOwner(tx, user.id);
    if (owner?.type !== 'human') return INVALID();
    await clearPasswordAttempts(tx, email);
    await insertSession(tx, { id: sessionId, userId: user.id, createdAt: now, expiresAt });
    const view = (await loadUser(tx, user.id))!;
    await recordAudit(deps, tx, { caller: { kind: 'human', userId: user.id, userName: view.name, apiKey: null }, via: actx.via, requestId: actx.requestId, clientAddress: actx.client }, { action: 'auth.login', target: userTarget(user.id, email) });
    const token = signSessionToken(deps.sessionSecret, { userId: user.id, sessionId }, expiresAt);
    return ok({ user: view, sessionId, token, maxAgeMs: deps.config.sessionTtlMs });
  });
  // Refused under the lock (deactivated meanwhile): the same answer and record as any other refusal.
  return signedIn.ok ? signedIn : refused();
}

/** Revokes the caller's session server-side; the old cookie is refused from the next request on. */
export async function logout(deps: Deps, ctx: Ctx): Promise<Result<null>> {
  if (ctx.caller.authenticatedBy !== 'session' || !ctx.caller.sessionId) {
    return refuse('session_required', 'Only a session can sign out; API keys are revoked instead.');
  }
  return transact(deps.orm, async (tx) => {
    const email = await revokeSession(tx, ctx.caller.sessionId!, deps.clock());
    if (email !== null) await recordAudit(deps, tx, ctx, { action: 'auth.logout', target: userTarget(ctx.caller.userId, email) });
    return ok(null);
  });
}

export interface MeView {
  user: UserView;
  roles: RoleView[];
  permissions: string[];
  authenticatedBy: 'session' | 'api_key' | 'oauth';
  apiKey: ApiKeyMetadata | null;
}

/** MeView as a schema, for the OpenAPI document. */
export const meOutput = z
  .object({
    user: userOutput.describe('Who is calling.'),
    roles: z.array(roleOutput).describe('Their roles.'),
    permissions: z.array(z.string()).describe('Their effective permissions: every permission their roles grant, inherited ones included.'),
    authenticatedBy: z.enum(['session', 'api_key', 'oauth']).describe('How this request authenticated: the session cookie, an API key, or an OAuth access token (MCP only).'),
    apiKey: apiKeyOutput.nullable().describe("The API key in use (metadata, never the key); null with a session."),
  })
  .describe('Who is calling, with what rights, and how.') satisfies z.ZodType<MeView>;

export async function getMe(deps: Deps, ctx: Ctx): Promise<Result<MeView>> {
  const denied = authorize(ctx, 'me.get');
  if (denied) return denied;
  const { caller } = ctx;
  if (!caller.userId || caller.authenticatedBy === 'system') return refuse('unauthenticated', 'No user is signed in.');
  const em = reader(deps.orm);
  const user = await loadUser(em, caller.userId);
  if (!user) return refuse('unauthenticated', 'No user is signed in.');
  return ok({
    user,
    roles: user.roles,
    permissions: expandGrants(callerGrants(caller)),
    authenticatedBy: caller.authenticatedBy,
    apiKey: caller.apiKey ? await loadKeyMetadata(em, caller.apiKey.id) : null,
  });
}

/**
 * `POST /me/password`: verifies the current password, rehashes, revokes the user's OTHER sessions. A wrong
 * current password counts as a failed sign-in for the user's email and the client (one throttle for every
 * way of guessing a password), so a stolen session cannot guess without limit.
 */
export async function changePassword(deps: Deps, ctx: Ctx, input: unknown, client: string): Promise<Result<null>> {
  const denied = authorize(ctx, 'me.changePassword') ?? requirePasswordSession(ctx);
  if (denied) return denied;
  const parsed = parseInput(changePasswordInput, input);
  if (!parsed.ok) return parsed;
  const { currentPassword, newPassword } = parsed.value;
  const userId = ctx.caller.userId!;
  const row = await credentialsById(reader(deps.orm), userId);
  if (!row) return refuse('unauthenticated', 'No user is signed in.');
  const throttled = await reservePasswordAttempt(deps, row.email, client);
  if (throttled) return throttled;
  // Slow work outside the transaction.
  if (!row.passwordHash || !(await verifyPassword(row.passwordHash, currentPassword))) {
    // Recorded (SPEC §11: failed attempts at a password are identity actions): a stolen session guessing shows here.
    await recordAudit(deps, reader(deps.orm), ctx, { action: 'auth.password_change_failed', target: userTarget(userId, row.email) });
    return validationFailed([{ path: 'currentPassword', message: 'is not the current password', code: 'incorrect', params: {} }]);
  }
  const hash = await hashPassword(newPassword);
  const now = deps.clock();
  return transact(deps.orm, async (tx) => {
    await setPasswordHash(tx, userId, hash, now);
    await clearPasswordAttempts(tx, row.email);
    await revokeSessionsOf(tx, userId, now, ctx.caller.sessionId);
    await recordAudit(deps, tx, ctx, { action: 'user.password_changed', target: userTarget(userId, row.email) });
    return ok(null);
  });
}

/** What `login` answers on GraphQL: the `me` view of the session just created. */
export async function meOfNewSession(deps: Deps, actx: AnonCtx, token: string): Promise<Result<MeView>> {
  const caller = await authenticateSession(deps, token);
  if (!caller) return INVALID();
  return getMe(deps, { caller, via: actx.via, requestId: actx.requestId });
}
