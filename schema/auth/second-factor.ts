// The second factor on GraphQL (SPEC §16): its answer types, named by the operation registry's entries
// (server/application/auth/second-factor.operations.ts, served by schema/operations.ts), and the public
// `loginMfa`: `login` answers MFA_REQUIRED with `mfaRequired` and `mfaToken` in its extensions for a user
// with a second factor, and `loginMfa` completes the sign-in.
import { builder } from '../builder.js';
import { describedArgs, inputDescription } from '../described.js';
import { unwrap } from '../errors.js';
import { HTTP_EXCHANGE, httpExchange } from '../context.js';
import { loginMfa, meOfNewSession } from '../../server/application/auth/auth.js';
import type { MfaEnrolment, MfaStatus, RecoveryCodes } from '../../server/application/auth/second-factor.js';
import { setSessionCookie } from '../../server/http/session-cookie.js';
import { MeRef } from './auth.type.js';

export const MfaStatusRef = builder.objectRef<MfaStatus>('MfaStatus').implement({
  description: "The caller's second factor.",
  fields: (t) => ({
    enrolled: t.exposeBoolean('enrolled', { description: 'A second factor (TOTP) is enrolled and confirmed.' }),
    enrolledAt: t.expose('enrolledAt', { type: 'DateTime', nullable: true, description: 'When it was confirmed.' }),
    pending: t.exposeBoolean('pending', { description: 'An enrolment waits for its confirming code.' }),
    recoveryCodesLeft: t.exposeInt('recoveryCodesLeft', { description: 'Unused recovery codes.' }),
    required: t.exposeBoolean('required', { description: 'The service requires this user to enrol before anything else (REQUIRE_MFA_FOR_ADMINS).' }),
  }),
});

export const MfaEnrolmentRef = builder.objectRef<MfaEnrolment>('MfaEnrolment').implement({
  description: 'A started enrolment: the secret (shown once) as text, as an otpauth URI and as a QR code. Confirm it with confirmMfaEnrolment.',
  fields: (t) => ({
    secret: t.exposeString('secret', {
      nullable: true,
      description: 'The TOTP secret (base32), to type into an authenticator app. Null on an idempotent replay: a secret is never kept.',
    }),
    otpauthUri: t.exposeString('otpauthUri', { nullable: true, description: 'The otpauth://totp/… URI the QR code holds. Null on an idempotent replay.' }),
    qrCodeSvg: t.exposeString('qrCodeSvg', { nullable: true, description: 'The QR code as an SVG document. Null on an idempotent replay.' }),
  }),
});

export const RecoveryCodesRef = builder.objectRef<RecoveryCodes>('RecoveryCodes').implement({
  description: 'Single-use recovery codes, shown once.',
  fields: (t) => ({
    recoveryCodes: t.exposeStringList('recoveryCodes', {
      nullable: true,
      description: 'Ten codes; each signs in once in place of an app code. Null on an idempotent replay: codes are never kept.',
    }),
  }),
});

const LoginMfaInput = builder.inputType('LoginMfaInput', {
  description: inputDescription('loginMfa'),
  fields: (t) => ({
    mfaToken: t.string({ required: true, description: 'The mfaToken of the password step (MFA_REQUIRED extensions).' }),
    code: t.string({ required: true, description: 'A 6-digit code from the authenticator app, or a recovery code.' }),
  }),
});

builder.mutationFields((t) => ({
  // Public, like login: it completes a sign-in (no authScopes on purpose).
  loginMfa: t.field({
    ...HTTP_EXCHANGE,
    type: MeRef,
    description:
      'The second step of a sign-in (SPEC §16): the mfaToken of login and a code; sets the `session` cookie. A wrong, expired or replayed code: INVALID_CREDENTIALS; throttled with password attempts (RATE_LIMITED).',
    args: describedArgs({ input: t.arg({ type: LoginMfaInput, required: true }) }),
    resolve: async (_r, args, context) => {
      const { req, res } = httpExchange(context);
      const actx = { via: 'graphql' as const, requestId: context.requestId, client: context.clientAddress };
      const session = unwrap(await loginMfa(context.deps, actx, args.input));
      setSessionCookie(context.deps, req, res, session.token, session.maxAgeMs);
      return unwrap(await meOfNewSession(context.deps, actx, session.token));
    },
  }),
}));
