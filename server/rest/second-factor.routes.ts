// The second factor on REST (SPEC §16): my enrolment under /me/mfa, an administrator's reset under
// /users/:id/mfa. The sign-in's code step (/auth/login/mfa) is public and lives in auth.routes.ts.
import { Router } from 'express';
import type { Deps } from '../application/context.js';
import { confirmMfaEnrolment, disableMyMfa, getMyMfa, resetUserMfa, startMfaEnrolment } from '../application/auth/second-factor.js';
import { clientAddress } from '../http/session-cookie.js';
import { handle } from './handle.js';

export function secondFactorRoutes(deps: Deps): Router {
  const router = Router();
  router.get(
    '/me/mfa',
    handle(deps, (d, ctx) => getMyMfa(d, ctx)),
  );
  router.post(
    '/me/mfa/totp',
    handle(deps, (d, ctx) => startMfaEnrolment(d, ctx), { status: 201 }),
  );
  router.post(
    '/me/mfa/totp/confirm',
    handle(deps, (d, ctx, req) => confirmMfaEnrolment(d, ctx, req.body, clientAddress(req))),
  );
  router.post(
    '/me/mfa/disable',
    handle(deps, (d, ctx, req) => disableMyMfa(d, ctx, req.body, clientAddress(req)), { status: 204 }),
  );
  router.post(
    '/users/:id/mfa/reset',
    handle(deps, (d, ctx, req) => resetUserMfa(d, ctx, String(req.params.id)), { status: 204 }),
  );
  return router;
}
