// /roles and /permissions: hierarchical RBAC administration.
import { Router } from 'express';
import type { Deps } from '../application/context.js';
import { createRole, deleteRole, getRole, listPermissions, listRoles, updateRole } from '../application/roles/roles.js';
import { handle } from './handle.js';

export function rolesRoutes(deps: Deps): Router {
  const router = Router();
  router.get('/permissions', handle(deps, async (d, ctx) => {
    const result = await listPermissions(d, ctx);
    return result.ok ? { ok: true as const, value: { data: result.value } } : result;
  }));
  router.get('/roles', handle(deps, (d, ctx, req) => listRoles(d, ctx, req.query)));
  router.post('/roles', handle(deps, (d, ctx, req) => createRole(d, ctx, req.body), { status: 201 }));
  router.get('/roles/:id', handle(deps, (d, ctx, req) => getRole(d, ctx, String(req.params.id))));
  router.patch('/roles/:id', handle(deps, (d, ctx, req) => updateRole(d, ctx, String(req.params.id), req.body)));
  router.delete('/roles/:id', handle(deps, (d, ctx, req) => deleteRole(d, ctx, String(req.params.id)), { status: 204 }));
  return router;
}
