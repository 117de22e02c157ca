// OpenAPI descriptions of the identity routes: login and logout by hand (no permission-table row: public,
// and the caller's own session); every other (me, users, API keys, roles, connected apps) generated from the
// registries.
import { loginInput } from '../application/auth/auth.js';
import { oidcCallbackQuery, oidcInfoOutput } from '../application/auth/oidc.js';
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
  {
    method: 'get',
    path: '/auth/oidc',
    summary: 'Whether single sign-on is offered, and under which name',
    tag: 'auth',
    auth: 'public',
    response: oidcInfoOutput,
    status: 200,
    operationId: 'getSingleSignOn',
    description: 'What the sign-in page needs to offer "Sign in with …" (SPEC §16): whether OIDC_ISSUER is set, and the name to show.',
  },
  {
    method: 'get',
    path: '/auth/oidc/start',
    summary: 'Single sign-on, first leg: sends the browser to the OpenID provider',
    tag: 'auth',
    auth: 'public',
    status: 303,
    errors: ['not_found'],
    operationId: 'startSingleSignOn',
    description:
      "A browser navigation, not an API call: answers 303 to the provider's authorization endpoint (authorization code with PKCE, a fresh state and nonce) and keeps the flow in a signed, HttpOnly cookie for the callback. 404 when single sign-on is not set up; when the provider cannot be reached, back to the sign-in page with `?sso_error=unavailable`.",
  },
  {
    method: 'get',
    path: '/auth/oidc/callback',
    summary: 'Single sign-on, second leg: the provider sends the browser back here',
    tag: 'auth',
    auth: 'public',
    query: oidcCallbackQuery,
    status: 303,
    errors: ['not_found'],
    operationId: 'confirmSingleSignOn',
    description:
      "The redirect URI to register at the provider (`PUBLIC_URL/api/v1/auth/oidc/callback`). The answer is checked by openid-client (state, code with the PKCE verifier, the ID token's signature, issuer, audience, expiry and nonce); a verified email of an active human sets the `session` cookie as a password login does and goes to the app (`/`), or to the second-factor step (`/#mfaToken=…`) when that user has one. Anything else goes back to the sign-in page with `?sso_error=refused`, `failed` or `throttled`; every attempt is audited like a password login and failures are throttled per client.",
  },
  ...operationDocs(['auth', 'me', 'users', 'api-keys', 'roles']),
];
