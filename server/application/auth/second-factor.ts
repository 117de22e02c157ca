// Two-factor for password logins (SPEC §16): enrolment from the account page, the code step of the
// two-step login, removal by the user, and an administrator's reset under the escalation rule. Every wrong
// code is a failed attempt of the password throttle (one budget for every way of guessing a credential).
import { z } from 'zod';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ok, refuse, validationFailed, type Refusal, type Result } from '../../domain/errors.js';
import { authorize } from '../authorize.js';
import { parseInput } from '../validate.js';
import type { Caller, Ctx, Deps } from '../context.js';
import { idOf } from '../schemas.js';
import { requirePasswordSession } from '../users/api-keys.js';
import { userNotFound } from '../users/users.js';
import { mayActOnUser } from '../users/act-on-user.js';
import { recordAudit, userTarget } from '../audit/audit.js';
import { reader, transact } from '../../persistence/transaction.js';
import { lockIdentityChanges } from '../../persistence/role-graph.js';
import { credentialsById, userSummary } from '../../persistence/users.js';
import * as store from '../../persistence/second-factor.js';
import {
  decryptTotpSecret,
  encryptTotpSecret,
  enrolmentUri,
  hashRecoveryCode,
  isRecoveryCodeShaped,
  isTotpShaped,
  matchTotp,
  newRecoveryCodes,
  newTotpSecret,
  recoveryCodeMatches,
  RECOVERY_CODE_COUNT,
} from '../../auth/second-factor.js';
import { clearPasswordAttempts, reservePasswordAttempt } from './throttle.js';

/** How long the `mfaToken` of a password step is good for, and how many wrong codes it takes. */
export const MFA_TOKEN_TTL_MS = 5 * 60_000;
export const MFA_TOKEN_MAX_FAILURES = 5;
/** What authenticator apps show above the code. */
export const TOTP_ISSUER = 'Market service';

const codeSchema = z.string().trim().min(1).max(64).describe('A 6-digit code from the authenticator app, or one of the recovery codes (xxxxx-xxxxx).');
export const confirmEnrolmentInput = z.strictObject({
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, 'must be the 6-digit code the authenticator app shows')
    .describe('The 6-digit code the authenticator app shows now.'),
});
export const disableMfaInput = z.strictObject({ code: codeSchema });
export const loginMfaInput = z.strictObject({
  mfaToken: z.string().min(1).max(200).describe('The `mfaToken` of the password step.'),
  code: codeSchema,
});

export interface MfaStatus {
  enrolled: boolean;
  enrolledAt: Date | null;
  /** an enrolment started and not yet confirmed */
  pending: boolean;
  recoveryCodesLeft: number;
  /** REQUIRE_MFA_FOR_ADMINS holds for this user: they must enrol before anything else */
  required: boolean;
}
export const mfaStatusOutput = z
  .object({
    enrolled: z.boolean().describe('Whether a second factor (TOTP) is enrolled and confirmed.'),
    enrolledAt: z.iso.datetime().nullable().describe('When it was confirmed; null when not enrolled.'),
    pending: z.boolean().describe('An enrolment was started and waits for its confirming code.'),
    recoveryCodesLeft: z.number().int().describe('Unused recovery codes.'),
    required: z.boolean().describe('The service requires this user to enrol (REQUIRE_MFA_FOR_ADMINS and the user holds `*`).'),
  })
  .describe("The caller's second factor.");

export interface MfaEnrolment {
  secret: string;
  otpauthUri: string;
  qrCodeSvg: string;
}
export const mfaEnrolmentOutput = z
  .object({
    secret: z
      .string()
      .optional()
      .describe('The TOTP secret (base32), to type into an authenticator app; shown in this answer only (absent on an idempotent replay).'),
    otpauthUri: z.string().optional().describe('The `otpauth://totp/…` URI the QR code holds (absent on an idempotent replay).'),
    qrCodeSvg: z.string().optional().describe('The QR code as an SVG document (absent on an idempotent replay).'),
  })
  .describe('A started enrolment: confirm it with a code from the app (POST /me/mfa/totp/confirm).');

export interface RecoveryCodes {
  recoveryCodes: string[];
}
export const recoveryCodesOutput = z
  .object({
    recoveryCodes: z
      .array(z.string())
      .optional()
      .describe(`${RECOVERY_CODE_COUNT} single-use recovery codes; shown in this answer only (absent on an idempotent replay).`),
  })
  .describe('The recovery codes of a confirmed enrolment.');

/** Whether REQUIRE_MFA_FOR_ADMINS applies to a holder of these grants. */
export const mfaRequiredFor = (deps: Pick<Deps, 'config'>, grants: string[]) => deps.config.requireMfaForAdmins && grants.includes('*');

const selfOf = (ctx: Ctx) => ({ id: ctx.caller.userId!, caller: ctx.caller });

async function statusOf(deps: Deps, em: EntityManager, caller: Pick<Caller, 'userId' | 'userGrants'>): Promise<MfaStatus> {
  const row = await store.mfaOf(em, caller.userId!);
  const enrolled = !!row?.confirmed_at;
  return {
    enrolled,
    enrolledAt: row?.confirmed_at ?? null,
    pending: !!row && !row.confirmed_at,
    recoveryCodesLeft: enrolled ? await store.countUnusedRecoveryCodes(em, caller.userId!) : 0,
    required: mfaRequiredFor(deps, caller.userGrants) && !enrolled,
  };
}

export async function getMyMfa(deps: Deps, ctx: Ctx): Promise<Result<MfaStatus>> {
  const denied = authorize(ctx, 'me.getMfa') ?? requirePasswordSession(ctx);
  if (denied) return denied;
  return ok(await statusOf(deps, reader(deps.orm), ctx.caller));
}

/** Starts (or restarts) an enrolment: a new secret, pending until a code from the app confirms it. */
export async function startMfaEnrolment(deps: Deps, ctx: Ctx): Promise<Result<MfaEnrolment>> {
  const denied = authorize(ctx, 'me.startMfaEnrolment') ?? requirePasswordSession(ctx);
  if (denied) return denied;
  const { id } = selfOf(ctx);
  const user = await credentialsById(reader(deps.orm), id);
  if (!user) return refuse('unauthenticated', 'No user is signed in.');
  const secret = newTotpSecret();
  const stored = await transact(deps.orm, async (tx) => ok(await store.putPendingMfa(tx, id, encryptTotpSecret(deps.sessionSecret, id, secret), deps.clock())));
  if (!stored.ok || !stored.value) return refuse('invalid_transition', 'A second factor is already enrolled; remove it before enrolling another.');
  return ok({ secret, ...(await enrolmentUri(TOTP_ISSUER, user.email, secret)) });
}

/** The throttle's answer for a code attempt, recorded as a throttled sign-in (nothing was checked). */
async function throttled(
  deps: Deps,
  ctx: Pick<Ctx, 'via' | 'requestId' | 'clientAddress'> & { caller: Caller | null },
  email: string,
  client: string,
  userId: string | null,
): Promise<Refusal | null> {
  const refused = await reservePasswordAttempt(deps, email, client);
  if (!refused) return null;
  deps.metrics.rateLimited('login');
  await recordAudit(deps, reader(deps.orm), ctx, { action: 'auth.login_throttled', target: userTarget(userId, email) });
  return refused;
}

const WRONG_CODE = (path: string) =>
  validationFailed([{ path, message: 'is not a valid code', code: 'incorrect', params: {} }], 'The code is wrong, expired or was already used.');

/** Confirms the pending enrolment with a code from the app; answers the recovery codes, once. */
export async function confirmMfaEnrolment(deps: Deps, ctx: Ctx, input: unknown, client: string): Promise<Result<RecoveryCodes>> {
  const denied = authorize(ctx, 'me.confirmMfaEnrolment') ?? requirePasswordSession(ctx);
  if (denied) return denied;
  const parsed = parseInput(confirmEnrolmentInput, input);
  if (!parsed.ok) return parsed;
  const { id } = selfOf(ctx);
  const em = reader(deps.orm);
  const [user, row] = [await credentialsById(em, id), await store.mfaOf(em, id)];
  if (!user) return refuse('unauthenticated', 'No user is signed in.');
  if (!row || row.confirmed_at) {
    return refuse('invalid_transition', row ? 'A second factor is already enrolled.' : 'No enrolment is waiting for a code: start one first.');
  }
  const limited = await throttled(deps, ctx, user.email, client, id);
  if (limited) return limited;
  const secret = decryptTotpSecret(deps.sessionSecret, id, row.secret_ciphertext);
  const step = secret ? await matchTotp(secret, parsed.value.code, deps.clock(), null) : null;
  if (step === null) {
    await recordAudit(deps, em, ctx, { action: 'auth.mfa_failed', target: userTarget(id, user.email) });
    return WRONG_CODE('code');
  }
  const codes = newRecoveryCodes();
  return transact(deps.orm, async (tx) => {
    const now = deps.clock();
    const current = await store.mfaOf(tx, id, { lock: true });
    if (!current || current.confirmed_at || current.secret_ciphertext !== row.secret_ciphertext) {
      return refuse('invalid_transition', 'The enrolment changed meanwhile: start again.');
    }
    await store.confirmMfa(
      tx,
      id,
      now,
      step,
      codes.map((c) => ({ id: deps.newId(), hash: hashRecoveryCode(c) })),
    );
    await clearPasswordAttempts(tx, user.email);
    await recordAudit(deps, tx, ctx, { action: 'user.mfa_enrolled', target: userTarget(id, user.email) });
    return ok({ recoveryCodes: codes });
  });
}

type CodeCheck = { kind: 'totp'; step: number } | { kind: 'recovery'; codeId: string } | null;

/** Which factor `code` is: a fresh TOTP code (its step) or an unused recovery code (its row), or null. */
async function checkCode(deps: Deps, em: EntityManager, userId: string, row: store.MfaRow, code: string): Promise<CodeCheck> {
  if (isTotpShaped(code)) {
    const secret = decryptTotpSecret(deps.sessionSecret, userId, row.secret_ciphertext);
    if (secret === null) {
      // Not a caller's mistake: the stored secret was made under another SESSION_SECRET (docs/identity.md).
      deps.logger.warn({ userId }, 'a second factor cannot be decrypted with this server secret; reset it (docs/identity.md)');
      return null;
    }
    const step = await matchTotp(secret, code, deps.clock(), row.last_time_step);
    return step === null ? null : { kind: 'totp', step };
  }
  if (!isRecoveryCodeShaped(code)) return null;
  for (const c of await store.unusedRecoveryCodes(em, userId)) if (recoveryCodeMatches(c.code_hash, code)) return { kind: 'recovery', codeId: c.id };
  return null;
}

/** Spends what `checkCode` found, in `tx`; false when a concurrent request spent it first (a replay). */
async function spendCode(deps: Deps, tx: EntityManager, userId: string, check: NonNullable<CodeCheck>): Promise<boolean> {
  return check.kind === 'totp' ? store.takeTimeStep(tx, userId, check.step) : store.useRecoveryCode(tx, check.codeId, deps.clock());
}

/** Removes my own second factor, given a current code (or a recovery code): a stolen session alone cannot. */
export async function disableMyMfa(deps: Deps, ctx: Ctx, input: unknown, client: string): Promise<Result<null>> {
  const denied = authorize(ctx, 'me.disableMfa') ?? requirePasswordSession(ctx);
  if (denied) return denied;
  const parsed = parseInput(disableMfaInput, input);
  if (!parsed.ok) return parsed;
  const { id } = selfOf(ctx);
  const em = reader(deps.orm);
  const [user, row] = [await credentialsById(em, id), await store.mfaOf(em, id)];
  if (!user) return refuse('unauthenticated', 'No user is signed in.');
  if (!row?.confirmed_at) return refuse('invalid_transition', 'No second factor is enrolled.');
  const limited = await throttled(deps, ctx, user.email, client, id);
  if (limited) return limited;
  const check = await checkCode(deps, em, id, row, parsed.value.code);
  const wrong = async () => {
    await recordAudit(deps, reader(deps.orm), ctx, { action: 'auth.mfa_failed', target: userTarget(id, user.email) });
    return WRONG_CODE('code');
  };
  if (!check) return wrong();
  const done = await transact(deps.orm, async (tx) => {
    if (!(await spendCode(deps, tx, id, check))) return refuse('invalid_transition', 'replayed');
    if (check.kind === 'recovery') await recordAudit(deps, tx, ctx, { action: 'auth.recovery_code_used', target: userTarget(id, user.email) });
    await store.deleteMfa(tx, id);
    await clearPasswordAttempts(tx, user.email);
    await recordAudit(deps, tx, ctx, { action: 'user.mfa_removed', target: userTarget(id, user.email) });
    return ok(null);
  });
  return done.ok ? done : wrong();
}

/**
 * An administrator removes another user's second factor (a lost device): `POST /users/:id/mfa/reset`.
 * Under the escalation rule like every action on a user; the user enrols again at their next sign-in.
 * Resetting a user without one changes nothing (204, nothing recorded), so a retry is safe. Not one's own
 * (422 not_applicable): that takes a code, at POST /me/mfa/disable.
 */
export async function resetUserMfa(deps: Deps, ctx: Ctx, id: string): Promise<Result<null>> {
  const denied = authorize(ctx, 'users.resetMfa');
  if (denied) return denied;
  const userId = idOf(id);
  if (!userId) return userNotFound(id);
  const user = await userSummary(reader(deps.orm), userId);
  if (!user) return userNotFound(id);
  // One's own factor goes only with a code (POST /me/mfa/disable): a stolen admin session cannot drop it here.
  if (userId === ctx.caller.userId)
    return refuse('not_applicable', 'Remove your own second factor from your account page, with a code from your app or a recovery code.');
  return transact(deps.orm, async (tx) => {
    await lockIdentityChanges(tx);
    const escalation = await mayActOnUser(tx, ctx.caller, userId);
    if (escalation) return escalation;
    if (user.type !== 'human') return refuse('not_applicable', 'Agent users sign in with API keys only; they have no second factor.');
    if (await store.deleteMfa(tx, userId)) await recordAudit(deps, tx, ctx, { action: 'user.mfa_reset', target: userTarget(userId, user.email) });
    return ok(null);
  });
}

/** The password step's answer for a user with a second factor: a challenge, no session yet. */
export async function issueMfaChallenge(
  deps: Deps,
  tx: EntityManager,
  userId: string,
  email: string,
  token: { token: string; hash: string },
): Promise<{ mfaRequired: true; mfaToken: string }> {
  const now = deps.clock();
  await store.insertChallenge(tx, { id: deps.newId(), tokenHash: token.hash, userId, email, at: now, expiresAt: new Date(now.getTime() + MFA_TOKEN_TTL_MS) });
  return { mfaRequired: true, mfaToken: token.token };
}

export { checkCode, spendCode };
