// OpenAPI description of the sign-in's code step (SPEC §16); the second factor's other routes are the
// operation registry's (server/application/auth/second-factor.operations.ts).
import { z } from 'zod';
import { userOutput } from '../application/users/user.read.js';
import { loginMfaInput, MFA_TOKEN_TTL_MS } from '../application/auth/second-factor.js';
import type { RouteDoc } from './openapi.js';

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
];
