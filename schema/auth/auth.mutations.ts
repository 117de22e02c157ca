import { builder } from '../builder.js';
import { describedArgs, inputDescription } from '../described.js';
import { gqlCtx, HTTP_EXCHANGE, httpExchange } from '../context.js';
import { toGraphQLError, unwrap } from '../errors.js';
import { refuse } from '../../server/domain/errors.js';
import { login, loginInput, logout, meOfNewSession } from '../../server/application/auth/auth.js';
import { zodInputType } from '../zod-input.js';
import { clearSessionCookie, setSessionCookie } from '../../server/http/session-cookie.js';
import { MeRef } from './auth.type.js';

const LoginInput = zodInputType('LoginInput', loginInput, inputDescription('login'));

builder.mutationFields((t) => ({
  // Public: the one field an anonymous caller may use (no authScopes on purpose).
  login: t.field({
    ...HTTP_EXCHANGE,
    type: MeRef,
    description:
      'Signs in a human with email and password and sets the `session` cookie (HttpOnly, SameSite=Strict). Wrong password, unknown email, agent or deactivated user: INVALID_CREDENTIALS, one answer for all; throttled (RATE_LIMITED). A user with a second factor: MFA_REQUIRED with `mfaRequired` and `mfaToken` in the extensions, and no cookie; finish with loginMfa.',
    args: describedArgs({ input: t.arg({ type: LoginInput, required: true }) }),
    resolve: async (_r, args, context) => {
      const { req, res } = httpExchange(context);
      const actx = { via: 'graphql' as const, requestId: context.requestId, client: context.clientAddress };
      const session = unwrap(await login(context.deps, actx, args.input));
      // SPEC §16: a user with a second factor gets no session yet; the client completes it with loginMfa.
      if (session.mfaRequired) {
        throw toGraphQLError(
          refuse('mfa_required', 'Enter the code from your authenticator app to finish signing in.', { mfaRequired: true, mfaToken: session.mfaToken }),
        );
      }
      setSessionCookie(context.deps, req, res, session.token, session.maxAgeMs);
      return unwrap(await meOfNewSession(context.deps, actx, session.token));
    },
  }),
  logout: t.boolean({
    ...HTTP_EXCHANGE,
    authScopes: { authenticated: true },
    description: 'Signs out: revokes the session server-side and clears the cookie. Answers true.',
    resolve: async (_r, _a, context) => {
      const { req, res } = httpExchange(context);
      unwrap(await logout(context.deps, gqlCtx(context)));
      clearSessionCookie(context.deps, req, res);
      return true;
    },
  }),
}));
