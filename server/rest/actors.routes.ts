// REST: /actors (SPEC §5). Parse → call → map.
import { Router } from 'express';
import type { Deps } from '../application/context.js';
import { createActor, deleteActor, getActor, listActors, updateActor } from '../application/actors/index.js';
import { handle } from './handle.js';

export function actorsRoutes(deps: Deps): Router {
  const router = Router();
  router.get(
    '/actors',
    handle(deps, (d, ctx, req) => listActors(d, ctx, req.query)),
  );
  router.post(
    '/actors',
    handle(deps, (d, ctx, req) => createActor(d, ctx, req.body), { status: 201 }),
  );
  router.get(
    '/actors/:id',
    handle(deps, (d, ctx, req) => getActor(d, ctx, String(req.params.id))),
  );
  router.patch(
    '/actors/:id',
    handle(deps, (d, ctx, req) => updateActor(d, ctx, String(req.params.id), req.body)),
  );
  router.delete(
    '/actors/:id',
    handle(deps, (d, ctx, req) => deleteActor(d, ctx, String(req.params.id)), { status: 204 }),
  );
  return router;
}
