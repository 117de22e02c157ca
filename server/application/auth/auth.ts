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
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditChanges } from '../../persistence/audit.js';
import { hasConfirmedMfa, mfaOf, challengeByHash, countChallengeFailure, spendChallenge } from '../../persistence/second-factor.js';
import { hashMfaToken, newMfaToken } from '../../auth/second-factor.js';
import { checkCode, issueMfaChallenge, loginMfaInput, MFA_TOKEN_MAX_FAILURES, spendCode } from './second-factor.js';

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
  mfaRequired: false;
  user: UserView;
  sessionId: string;
  /** the session cookie's value */
  token: string;
  maxAgeMs: number;
}

/** SPEC §16: the password was right and the user has a second factor; `POST /auth/login/mfa` completes it. */
export interface MfaChallenge {
  mfaRequired: true;
  mfaToken: string;
}

/** The audit context of a sign-in attempt: nobody is signed in yet. */
const anonymous = (actx: AnonCtx) => ({ caller: null, via: actx.via, requestId: actx.requestId, clientAddress: actx.client });

const INVALID = () => refuse('invalid_credentials', 'The email or password is wrong, or the account cannot sign in.');

/**
 * Creates the session of a sign-in whose every factor was checked, in `tx`: the user must still be an
 * active human (the share lock keeps a deactivation from committing until the session is in, so it revokes
 * it: SPEC §5, none comes back on reactivation). Null when it no longer is.
 */
export async function openSession(
  deps: Deps,
  tx: EntityManager,
  actx: AnonCtx,
  userId: string,
  email: string,
  changes?: AuditChanges,
): Promise<LoginResult | null> {
  const owner = await shareCredentialOwner(tx, userId);
  if (owner?.type !== 'human') return null;
  const now = deps.clock();
  const sessionId = deps.newId();
  const expiresAt = new Date(now.getTime() + deps.config.sessionTtlMs);
  await clearPasswordAttempts(tx, email);
  await insertSession(tx, { id: sessionId, userId, createdAt: now, expiresAt });
  const view = (await loadUser(tx, userId))!;
  await recordAudit(
    deps,
    tx,
    { caller: { kind: 'human', userId, userName: view.name, apiKey: null }, via: actx.via, requestId: actx.requestId, clientAddress: actx.client },
    { action: 'auth.login', target: userTarget(userId, email), ...(changes ? { changes } : {}) },
  );
  const token = signSessionToken(deps.sessionSecret, { userId, sessionId }, expiresAt);
  return { mfaRequired: false, user: view, sessionId, token, maxAgeMs: deps.config.sessionTtlMs };
}

export async function login(deps: Deps, actx: AnonCtx, input: unknown): Promise<Result<LoginResult | MfaChallenge>> {
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
  const verified = await verifyPassword(eligible ? user.passwordHash! : await dummyHash(deps.config.passwordHashing), password);
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

  if (await hasConfirmedMfa(em, user.id)) {
    // SPEC §16: no session yet. The reserved attempt stays counted until the code step succeeds, so knowing
    // the password buys no more code guesses than the throttle allows.
    const challenge = await transact(deps.orm, async (tx) => {
      const owner = await shareCredentialOwner(tx, user.id);
      if (owner?.type !== 'human') return INVALID();
      return ok(await issueMfaChallenge(deps, tx, user.id, email, newMfaToken()));
    });
    return challenge.ok ? challenge : refused();
  }
  const signedIn = await transact(deps.orm, async (tx) => {
    const session = await openSession(deps, tx, actx, user.id, email);
    return session ? ok(session) : INVALID();
  });
  // Refused under the lock (deactivated meanwhile): the same answer and record as any other refusal.
  return signedIn.ok ? signedIn : refused();
}

const EXPIRED = () => refuse('invalid_credentials', 'This sign-in has expired or was already completed: sign in with your password again.');

/**
 * `POST /auth/login/mfa` `{mfaToken, code}`: the second step (SPEC §16). The code is a TOTP code (each
 * accepted once) or an unused recovery code. Throttled with the password attempts of the user's email and
 * the client; a token takes at most MFA_TOKEN_MAX_FAILURES wrong codes and lasts MFA_TOKEN_TTL_MS.
 */
export async function loginMfa(deps: Deps, actx: AnonCtx, input: unknown): Promise<Result<LoginResult>> {
  const parsed = parseInput(loginMfaInput, input);
  if (!parsed.ok) return parsed;
  const em = reader(deps.orm);
  const challenge = await challengeByHash(em, hashMfaToken(parsed.value.mfaToken));
  if (!challenge || challenge.used_at || challenge.expires_at.getTime() <= deps.clock().getTime()) return EXPIRED();
  const { user_id: userId, email } = challenge;
  const throttled = await reservePasswordAttempt(deps, email, actx.client);
  if (throttled) {
    deps.metrics.rateLimited('login');
    await recordAudit(deps, em, anonymous(actx), { action: 'auth.login_throttled', target: userTarget(userId, email) });
    return throttled;
  }
  const row = await mfaOf(em, userId);
  const check = row?.confirmed_at ? await checkCode(deps, em, userId, row, parsed.value.code) : null;
  const wrong = async () => {
    deps.metrics.loginFailure();
    const failures = await countChallengeFailure(em, challenge.id);
    if (failures >= MFA_TOKEN_MAX_FAILURES) await transact(deps.orm, async (tx) => ok(await spendChallenge(tx, challenge.id, deps.clock())));
    await recordAudit(deps, em, anonymous(actx), { action: 'auth.mfa_failed', target: userTarget(userId, email) });
    return refuse('invalid_credentials', 'The code is wrong, expired or was already used.');
  };
  if (!check) return wrong();
  const signedIn = await transact(deps.orm, async (tx) => {
    if (!(await spendChallenge(tx, challenge.id, deps.clock()))) return EXPIRED();
    if (!(await spendCode(deps, tx, userId, check))) return refuse('invalid_credentials', 'replayed');
    if (check.kind === 'recovery') {
      await recordAudit(deps, tx, anonymous(actx), { action: 'auth.recovery_code_used', target: userTarget(userId, email) });
    }
    const session = await openSession(deps, tx, actx, userId, email, { secondFactor: { from: null, to: check.kind === 'totp' ? 'totp' : 'recovery_code' } });
    return session ? ok(session) : INVALID();
  });
  if (signedIn.ok) return signedIn;
  if (signedIn.detail === 'replayed') return wrong();
  return signedIn;
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
    authenticatedBy: z
      .enum(['session', 'api_key', 'oauth'])
      .describe('How this request authenticated: the session cookie, an API key, or an OAuth access token (MCP only).'),
    apiKey: apiKeyOutput.nullable().describe('The API key in use (metadata, never the key); null with a session.'),
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
  const hash = await hashPassword(newPassword, deps.config.passwordHashing);
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
