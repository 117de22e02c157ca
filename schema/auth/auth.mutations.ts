import { builder } from '../builder.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import { login, loginInput, logout, meOfNewSession } from '../../server/application/auth/auth.js';
import { zodInputType } from '../zod-input.js';
import { clearSessionCookie, clientAddress, setSessionCookie } from '../../server/http/session-cookie.js';
import { MeRef } from './auth.type.js';

const LoginInput = zodInputType('LoginInput', loginInput);

builder.mutationFields((t) => ({
  // Public: the one field an anonymous caller may use (no authScopes on purpose).
  login: t.field({
    type: MeRef,
    description: 'Signs in a human with email and password and sets the `session` cookie (HttpOnly, SameSite=Strict). Wrong password, unknown email, agent or deactivated user: INVALID_CREDENTIALS, one answer for all; throttled (RATE_LIMITED).',
    args: { input: t.arg({ type: LoginInput, required: true }) },
    resolve: async (_r, args, context) => {
      const actx = { via: 'graphql' as const, requestId: context.requestId, client: clientAddress(context.req) };
      const session = unwrap(await login(context.deps, actx, args.input));
      setSessionCookie(context.deps, context.req, context.res, session.token, session.maxAgeMs);
      return unwrap(await meOfNewSession(context.deps, actx, session.token));
    },
  }),
  logout: t.boolean({
    authScopes: { authenticated: true },
    description: 'Signs out: revokes the session server-side and clears the cookie. Answers true.',
    resolve: async (_r, _a, context) => {
      unwrap(await logout(context.deps, gqlCtx(context)));
      clearSessionCookie(context.deps, context.req, context.res);
      return true;
    },
  }),
}));
