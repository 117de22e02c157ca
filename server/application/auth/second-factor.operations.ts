// The second factor's operations (SPEC §16): my enrolment under /me/mfa and an administrator's reset under
// /users/:id/mfa/reset. Every face is generated from these entries (server/application/operations.ts); the
// sign-in's code step (/auth/login/mfa, GraphQL loginMfa) is public and stays with login.
import { defineOperation, NOT_FOR_AGENTS, type OperationEntry } from '../operations.js';
import {
  confirmEnrolmentInput,
  confirmMfaEnrolment,
  disableMfaInput,
  disableMyMfa,
  getMyMfa,
  mfaEnrolmentOutput,
  mfaStatusOutput,
  recoveryCodesOutput,
  resetUserMfa,
  startMfaEnrolment,
} from './second-factor.js';

const SELF = 'Self-service for a human signed in with a password (session cookie); API keys and agents get 403 session_required.';
const THROTTLED = 'A wrong code counts as a failed sign-in for my email and this client (the password throttle: 429 `rate_limited` with `Retry-After`).';
const client = (ctx: { clientAddress?: string | null }) => String(ctx.clientAddress);

export const SECOND_FACTOR_OPERATIONS: OperationEntry[] = [
  defineOperation({
    operation: 'me.getMfa',
    run: (deps, ctx) => getMyMfa(deps, ctx),
    output: mfaStatusOutput,
    errors: ['session_required'],
    rest: {
      method: 'get',
      path: '/me/mfa',
      status: 200,
      tag: 'me',
      input: 'none',
      auth: 'session',
      summary: 'My second factor: enrolled, recovery codes left, required',
      description: `Whether I have a second factor, since when, how many recovery codes are left, and whether the service requires one of me (REQUIRE_MFA_FOR_ADMINS). ${SELF}`,
    },
    graphql: {
      kind: 'query',
      field: 'myMfa',
      type: 'MfaStatus',
      args: 'none',
      description: 'My second factor: enrolled or not, recovery codes left, and whether the service requires one of me. Password session only.',
    },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.selfService },
  }),
  defineOperation({
    operation: 'me.startMfaEnrolment',
    run: (deps, ctx) => startMfaEnrolment(deps, ctx),
    output: mfaEnrolmentOutput,
    errors: ['session_required', 'invalid_transition'],
    rest: {
      method: 'post',
      path: '/me/mfa/totp',
      status: 201,
      tag: 'me',
      input: 'none',
      auth: 'session',
      summary: 'Start enrolling an authenticator app (TOTP): the secret and its QR code',
      description: `Starts (or restarts) my enrolment: a new secret, as text, as an \`otpauth://\` URI and as an SVG QR code, shown in this answer only. It is pending until confirmed with a code (POST /me/mfa/totp/confirm). 409 invalid_transition when a second factor is already enrolled. ${SELF}`,
    },
    graphql: {
      kind: 'mutation',
      field: 'startMfaEnrolment',
      type: 'MfaEnrolment',
      args: 'none',
      description:
        'Starts (or restarts) my TOTP enrolment; confirm it with confirmMfaEnrolment. Password session only; INVALID_TRANSITION when one is enrolled.',
    },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.selfService },
  }),
  defineOperation({
    operation: 'me.confirmMfaEnrolment',
    run: (deps, ctx, _p, input) => confirmMfaEnrolment(deps, ctx, input, client(ctx)),
    input: confirmEnrolmentInput,
    output: recoveryCodesOutput,
    errors: ['session_required', 'invalid_transition', 'rate_limited'],
    audit: ['user.mfa_enrolled', 'auth.mfa_failed'],
    rest: {
      method: 'post',
      path: '/me/mfa/totp/confirm',
      status: 200,
      tag: 'me',
      input: 'body',
      bodyRequired: true,
      auth: 'session',
      summary: 'Confirm my enrolment with a code; answers ten recovery codes, once',
      description: `Confirms the pending enrolment with the code the app shows now; from then on a password sign-in asks for a code. Answers ten single-use recovery codes, in this answer only (a replay with the same Idempotency-Key answers without them). A wrong code is 400 validation_failed (code \`incorrect\`). ${THROTTLED} ${SELF}`,
    },
    graphql: {
      kind: 'mutation',
      field: 'confirmMfaEnrolment',
      type: 'RecoveryCodes',
      args: 'flat',
      description: 'Confirms my pending enrolment with a code from the app; answers ten recovery codes, once. A wrong code counts as a failed sign-in.',
    },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.selfService },
    example: { code: '123456' },
  }),
  defineOperation({
    operation: 'me.disableMfa',
    run: (deps, ctx, _p, input) => disableMyMfa(deps, ctx, input, client(ctx)),
    input: disableMfaInput,
    errors: ['session_required', 'invalid_transition', 'rate_limited'],
    audit: ['user.mfa_removed', 'auth.mfa_failed', 'auth.recovery_code_used'],
    rest: {
      method: 'post',
      path: '/me/mfa/disable',
      status: 204,
      tag: 'me',
      input: 'body',
      bodyRequired: true,
      auth: 'session',
      summary: 'Remove my second factor, given a current code or a recovery code',
      description: `Removes my second factor and its recovery codes, given a code from the app or a recovery code (a stolen session alone cannot). A wrong code is 400 validation_failed (code \`incorrect\`). ${THROTTLED} ${SELF}`,
    },
    graphql: {
      kind: 'mutation',
      field: 'disableMyMfa',
      type: 'Boolean',
      args: 'flat',
      description: 'Removes my second factor, given a current code or a recovery code. A wrong code counts as a failed sign-in.',
    },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.selfService },
    example: { code: '123456' },
  }),
  defineOperation({
    operation: 'users.resetMfa',
    run: (deps, ctx, p) => resetUserMfa(deps, ctx, p.id),
    errors: ['user_not_found', 'not_applicable', 'escalation_denied'],
    audit: ['user.mfa_reset'],
    rest: {
      method: 'post',
      path: '/users/:id/mfa/reset',
      status: 204,
      tag: 'users',
      input: 'none',
      summary: "Reset a human user's second factor (a lost device)",
      description:
        "Removes a human user's second factor and recovery codes, so they can sign in with their password and enrol again (an administrator's recovery of a lost device). Under the escalation rule: the target must hold no permission you lack (403 escalation_denied). A user without one is answered 204 and nothing changes. Not for agents, nor for one's own (422 not_applicable: that takes a code, at POST /me/mfa/disable).",
    },
    graphql: {
      kind: 'mutation',
      field: 'resetUserMfa',
      type: 'Boolean',
      args: 'none',
      description:
        "An administrator removes a human user's second factor (a lost device); they enrol again. Under the escalation rule (ESCALATION_DENIED). Answers true.",
    },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityWrite },
  }),
];
