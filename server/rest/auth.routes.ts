// /auth: login and its second step (public, no CSRF header) and logout (a caller required); GET /auth/me is
// the me area's registry entry (server/application/users/me.operations.ts).
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Deps } from '../application/context.js';
import { login, loginMfa, logout } from '../application/auth/auth.js';
import { clearSessionCookie, clientAddress, setSessionCookie } from '../http/session-cookie.js';
import { handle } from './handle.js';
import { sendProblem } from './problem.js';

export function authRoutes(deps: Deps, requireCaller: RequestHandler): Router {
  const router = Router();
  router.post('/auth/login', async (req: Request, res: Response, next: NextFunction) => {
    try {
      const result = await login(deps, { via: 'rest', requestId: req.requestId, client: clientAddress(req) }, req.body);
      if (!result.ok) return sendProblem(res, result, req.requestId);
      // SPEC §16: a user with a second factor gets `{ mfaRequired: true, mfaToken }` and no cookie yet.
      if (result.value.mfaRequired) return res.status(200).json({ mfaRequired: true, mfaToken: result.value.mfaToken });
      setSessionCookie(deps, req, res, result.value.token, result.value.maxAgeMs);
      res.status(200).json(result.value.user);
    } catch (err) {
      next(err);
    }
  });
  router.post('/auth/login/mfa', async (req: Request, res: Response, next: NextFunction) => {
    try {
      const result = await loginMfa(deps, { via: 'rest', requestId: req.requestId, client: clientAddress(req) }, req.body);
      if (!result.ok) return sendProblem(res, result, req.requestId);
      setSessionCookie(deps, req, res, result.value.token, result.value.maxAgeMs);
      res.status(200).json(result.value.user);
    } catch (err) {
      next(err);
    }
  });
  router.post(
    '/auth/logout',
    requireCaller,
    handle(
      deps,
      async (d, ctx, req) => {
        const result = await logout(d, ctx);
        if (result.ok) clearSessionCookie(d, req, req.res!);
        return result;
      },
      { status: 204, idempotent: false },
    ),
  );
  return router;
}
