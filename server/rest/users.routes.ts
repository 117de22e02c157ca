// /users: user administration and agent API keys.
import { Router } from 'express';
import type { Deps } from '../application/context.js';
import { createUser, deactivateUser, getUser, listUsers, reactivateUser, resetUserPassword, setUserRoles, updateUser } from '../application/users/users.js';
import { listUserApiKeys, provisionApiKey, revokeUserApiKey, rotateUserApiKey } from '../application/users/api-keys.js';
import { listUserConnectedApps, revokeUserConnectedApp } from '../application/oauth/connected-apps.js';
import { handle } from './handle.js';

export function usersRoutes(deps: Deps): Router {
  const router = Router();
  const id = (p: unknown) => String(p);
  router.get('/users', handle(deps, (d, ctx, req) => listUsers(d, ctx, req.query)));
  router.post('/users', handle(deps, (d, ctx, req) => createUser(d, ctx, req.body), { status: 201 }));
  router.get('/users/:id', handle(deps, (d, ctx, req) => getUser(d, ctx, id(req.params.id))));
  router.patch('/users/:id', handle(deps, (d, ctx, req) => updateUser(d, ctx, id(req.params.id), req.body)));
  router.delete(
    '/users/:id',
    handle(deps, async (d, ctx, req) => {
      const result = await deactivateUser(d, ctx, id(req.params.id));
      return result.ok ? { ok: true as const, value: null } : result;
    }, { status: 204 }),
  );
  router.post('/users/:id/reactivate', handle(deps, (d, ctx, req) => reactivateUser(d, ctx, id(req.params.id))));
  router.put('/users/:id/roles', handle(deps, (d, ctx, req) => setUserRoles(d, ctx, id(req.params.id), req.body)));
  router.post('/users/:id/password', handle(deps, (d, ctx, req) => resetUserPassword(d, ctx, id(req.params.id), req.body), { status: 204 }));
  router.get('/users/:id/api-keys', handle(deps, (d, ctx, req) => listUserApiKeys(d, ctx, id(req.params.id), req.query)));
  router.post('/users/:id/api-keys', handle(deps, (d, ctx, req) => provisionApiKey(d, ctx, id(req.params.id), req.body), { status: 201 }));
  router.post(
    '/users/:id/api-keys/:keyId/rotate',
    handle(deps, (d, ctx, req) => rotateUserApiKey(d, ctx, id(req.params.id), id(req.params.keyId), req.body), { status: 201 }),
  );
  router.delete(
    '/users/:id/api-keys/:keyId',
    handle(deps, (d, ctx, req) => revokeUserApiKey(d, ctx, id(req.params.id), id(req.params.keyId)), { status: 204 }),
  );
  router.get('/users/:id/connected-apps', handle(deps, (d, ctx, req) => listUserConnectedApps(d, ctx, { userId: id(req.params.id) })));
  router.delete(
    '/users/:id/connected-apps/:appId',
    handle(deps, (d, ctx, req) => revokeUserConnectedApp(d, ctx, { userId: id(req.params.id), id: id(req.params.appId) }), { status: 204 }),
  );
  return router;
}
