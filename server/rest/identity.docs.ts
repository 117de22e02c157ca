// OpenAPI descriptions of the identity routes: login and logout by hand (no permission-table row: public,
// and the caller's own session); every other (me, users, API keys, roles, connected apps) generated from the
// registries.
import { loginInput } from '../application/auth/auth.js';
import type { RouteDoc } from './openapi.js';
import { operationDocs } from './operations.docs.js';
import { loginAnswerOutput } from './second-factor.docs.js';

export const IDENTITY_ROUTE_DOCS: RouteDoc[] = [
  {
    method: 'post',
    path: '/auth/login',
    summary: 'Sign in a human with email and password; sets the `session` cookie',
    tag: 'auth',
    auth: 'public',
    body: loginInput,
    response: loginAnswerOutput,
    status: 200,
    errors: ['invalid_credentials', 'rate_limited'],
    operationId: 'login',
    description:
      'Signs in a human with email and password and sets the `session` cookie (HttpOnly, SameSite=Strict) for the admin app. A user with a second factor gets `{ mfaRequired: true, mfaToken }` instead, and no cookie: finish with `POST /auth/login/mfa`. Agents, deactivated users, unknown emails and wrong passwords get the same 401 invalid_credentials. Failed attempts are throttled per email and per client (429 with `Retry-After`). No CSRF header needed.',
  },
  {
    method: 'post',
    path: '/auth/logout',
    summary: 'Sign out: revokes the session server-side',
    tag: 'auth',
    auth: 'session',
    status: 204,
    errors: ['session_required'],
    operationId: 'logout',
    idempotencyKey: false,
    description:
      'Revokes the current session server-side and clears the cookie; the old cookie is refused from the next request on. Always ends the session it is called with: an `Idempotency-Key` is ignored (a logout is safe to repeat; once the session has ended, the next call is 401).',
  },
  ...operationDocs(['auth', 'me', 'users', 'api-keys', 'roles']),
];
