// OpenAPI descriptions of the second factor's routes (SPEC §16), from the use cases' schemas.
import { z } from 'zod';
import { userOutput } from '../application/users/user.read.js';
import {
  confirmEnrolmentInput,
  disableMfaInput,
  loginMfaInput,
  mfaEnrolmentOutput,
  mfaStatusOutput,
  MFA_TOKEN_TTL_MS,
  recoveryCodesOutput,
} from '../application/auth/second-factor.js';
import type { RouteDoc } from './openapi.js';

const SELF = 'Self-service for a human signed in with a password (session cookie); API keys and agents get 403 session_required.';
const THROTTLED = 'A wrong code counts as a failed sign-in for my email and this client (the password throttle: 429 `rate_limited` with `Retry-After`).';

/** What `POST /auth/login` answers a user with a second factor, instead of a session. */
export const mfaChallengeOutput = z
  .object({
    mfaRequired: z.literal(true).describe('The password was right; a second factor is needed.'),
    mfaToken: z.string().describe(`Single-use, good for ${MFA_TOKEN_TTL_MS / 60_000} minutes: send it with a code to POST /auth/login/mfa.`),
  })
  .describe('The first step of a two-step sign-in: no session yet.');

export const loginAnswerOutput = z.union([userOutput, mfaChallengeOutput]).describe('The signed-in user (cookie set), or the challenge of a two-step sign-in.');

export const SECOND_FACTOR_ROUTE_DOCS: RouteDoc[] = [
  {
    method: 'post',
    path: '/auth/login/mfa',
    summary: 'Finish a two-step sign-in with a code; sets the `session` cookie',
    tag: 'auth',
    auth: 'public',
    body: loginMfaInput,
    response: userOutput,
    status: 200,
    errors: ['invalid_credentials', 'rate_limited'],
    operationId: 'loginMfa',
    description: `The second step of a sign-in for a user with a second factor: the \`mfaToken\` of \`POST /auth/login\` and a 6-digit code from the authenticator app (each accepted once) or one of the recovery codes (each usable once). A wrong, replayed or expired code or token is 401 invalid_credentials; a token takes at most five wrong codes. ${THROTTLED} No CSRF header needed.`,
  },
  {
    method: 'get',
    path: '/me/mfa',
    summary: 'My second factor: enrolled, recovery codes left, required',
    tag: 'me',
    operation: 'me.getMfa',
    auth: 'session',
    response: mfaStatusOutput,
    status: 200,
    errors: ['session_required'],
    description: `Whether I have a second factor, since when, how many recovery codes are left, and whether the service requires one of me (REQUIRE_MFA_FOR_ADMINS). ${SELF}`,
  },
  {
    method: 'post',
    path: '/me/mfa/totp',
    summary: 'Start enrolling an authenticator app (TOTP): the secret and its QR code',
    tag: 'me',
    operation: 'me.startMfaEnrolment',
    auth: 'session',
    response: mfaEnrolmentOutput,
    status: 201,
    errors: ['session_required', 'invalid_transition'],
    description: `Starts (or restarts) my enrolment: a new secret, as text, as an \`otpauth://\` URI and as an SVG QR code, shown in this answer only. It is pending until confirmed with a code (POST /me/mfa/totp/confirm). 409 invalid_transition when a second factor is already enrolled. ${SELF}`,
  },
  {
    method: 'post',
    path: '/me/mfa/totp/confirm',
    summary: 'Confirm my enrolment with a code; answers ten recovery codes, once',
    tag: 'me',
    operation: 'me.confirmMfaEnrolment',
    auth: 'session',
    body: confirmEnrolmentInput,
    response: recoveryCodesOutput,
    status: 200,
    errors: ['session_required', 'invalid_transition', 'rate_limited'],
    description: `Confirms the pending enrolment with the code the app shows now; from then on a password sign-in asks for a code. Answers ten single-use recovery codes, in this answer only (a replay with the same Idempotency-Key answers without them). A wrong code is 400 validation_failed (code \`incorrect\`). ${THROTTLED} ${SELF}`,
  },
  {
    method: 'post',
    path: '/me/mfa/disable',
    summary: 'Remove my second factor, given a current code or a recovery code',
    tag: 'me',
    operation: 'me.disableMfa',
    auth: 'session',
    body: disableMfaInput,
    status: 204,
    errors: ['session_required', 'invalid_transition', 'rate_limited'],
    description: `Removes my second factor and its recovery codes, given a code from the app or a recovery code (a stolen session alone cannot). A wrong code is 400 validation_failed (code \`incorrect\`). ${THROTTLED} ${SELF}`,
  },
  {
    method: 'post',
    path: '/users/:id/mfa/reset',
    summary: "Reset a human user's second factor (a lost device)",
    tag: 'users',
    operation: 'users.resetMfa',
    status: 204,
    errors: ['user_not_found', 'not_applicable', 'escalation_denied'],
    description:
      "Removes a human user's second factor and recovery codes, so they can sign in with their password and enrol again (an administrator's recovery of a lost device). Under the escalation rule: the target must hold no permission you lack (403 escalation_denied). A user without one is answered 204 and nothing changes. Not for agents, nor for one's own (422 not_applicable: that takes a code, at POST /me/mfa/disable).",
  },
];
