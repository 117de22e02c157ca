// Connected apps (SPEC §13): the caller's own (/me/connected-apps) and another user's
// (/users/:id/connected-apps, the escalation rule). Wired by hand: they arrived beside the operation
// registry (server/application/operations.ts) and are the next to move onto it.
import { Router } from 'express';
import type { Deps } from '../application/context.js';
import { listMyConnectedApps, listUserConnectedApps, revokeMyConnectedApp, revokeUserConnectedApp } from '../application/oauth/connected-apps.js';
import { handle } from './handle.js';

export function connectedAppsRoutes(deps: Deps): Router {
  const router = Router();
  const id = (v: unknown) => String(v);
  router.get(
    '/me/connected-apps',
    handle(deps, (d, ctx) => listMyConnectedApps(d, ctx)),
  );
  router.delete(
    '/me/connected-apps/:appId',
    handle(deps, (d, ctx, req) => revokeMyConnectedApp(d, ctx, { id: String(req.params.appId) }), { status: 204 }),
  );
  router.get(
    '/users/:id/connected-apps',
    handle(deps, (d, ctx, req) => listUserConnectedApps(d, ctx, { userId: id(req.params.id) })),
  );
  router.delete(
    '/users/:id/connected-apps/:appId',
    handle(deps, (d, ctx, req) => revokeUserConnectedApp(d, ctx, { userId: id(req.params.id), id: id(req.params.appId) }), { status: 204 }),
  );
  return router;
}
