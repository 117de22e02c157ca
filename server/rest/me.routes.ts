// /me: self-service for the signed-in human (password change, own API keys, connected apps).
import { Router } from 'express';
import type { Deps } from '../application/context.js';
import { changePassword } from '../application/auth/auth.js';
import { createMyApiKey, listMyApiKeys, revokeMyApiKey, rotateMyApiKey } from '../application/users/api-keys.js';
import { clientAddress } from '../http/session-cookie.js';
import { listMyConnectedApps, revokeMyConnectedApp } from '../application/oauth/connected-apps.js';
import { handle } from './handle.js';

export function meRoutes(deps: Deps): Router {
  const router = Router();
  router.post('/me/password', handle(deps, (d, ctx, req) => changePassword(d, ctx, req.body, clientAddress(req)), { status: 204 }));
  router.get('/me/api-keys', handle(deps, (d, ctx, req) => listMyApiKeys(d, ctx, req.query)));
  router.post('/me/api-keys', handle(deps, (d, ctx, req) => createMyApiKey(d, ctx, req.body), { status: 201 }));
  router.post('/me/api-keys/:keyId/rotate', handle(deps, (d, ctx, req) => rotateMyApiKey(d, ctx, String(req.params.keyId), req.body), { status: 201 }));
  router.delete('/me/api-keys/:keyId', handle(deps, (d, ctx, req) => revokeMyApiKey(d, ctx, String(req.params.keyId)), { status: 204 }));
  router.get('/me/connected-apps', handle(deps, (d, ctx) => listMyConnectedApps(d, ctx)));
  router.delete('/me/connected-apps/:appId', handle(deps, (d, ctx, req) => revokeMyConnectedApp(d, ctx, { id: String(req.params.appId) }), { status: 204 }));
  return router;
}
