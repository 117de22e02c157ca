// REST: /tensions (SPEC §3–§5). Parse → call → map; the use cases validate and authorize.
import { Router, type Request } from 'express';
import type { Ctx, Deps } from '../application/context.js';
import type { Result } from '../domain/errors.js';
import {
  discardTension,
  dropTension,
  getTension,
  getTensionHistory,
  listTensions,
  reassignTension,
  renameTension,
  reopenTension,
  rescoreTension,
  resolveTension,
  reviseTensionContext,
  reviveTension,
  senseTension,
  setTensionLead,
} from '../application/tensions/index.js';
import { handle } from './handle.js';

type Command = (deps: Deps, ctx: Ctx, id: string, input: unknown) => Promise<Result<unknown>>;

const COMMANDS: Record<string, Command> = {
  rename: renameTension,
  rescore: rescoreTension,
  revise: reviseTensionContext,
  lead: setTensionLead,
  reassign: reassignTension,
  resolve: resolveTension,
  drop: dropTension,
  reopen: reopenTension,
  revive: reviveTension,
};

/** `?expectedVersion=N` of DELETE: digits become a number; anything else reaches the schema as is (400). */
function deleteInput(req: Request): unknown {
  const v = req.query.expectedVersion;
  if (v === undefined) return {};
  return { expectedVersion: typeof v === 'string' && /^\d{1,9}$/.test(v) ? Number(v) : v };
}

export function tensionsRoutes(deps: Deps): Router {
  const router = Router();
  router.get('/tensions', handle(deps, (d, ctx, req) => listTensions(d, ctx, req.query)));
  router.post('/tensions', handle(deps, (d, ctx, req) => senseTension(d, ctx, req.body), { status: 201 }));
  router.get('/tensions/:id', handle(deps, (d, ctx, req) => getTension(d, ctx, String(req.params.id))));
  router.get('/tensions/:id/history', handle(deps, (d, ctx, req) => getTensionHistory(d, ctx, String(req.params.id), req.query)));
  for (const [verb, command] of Object.entries(COMMANDS)) {
    router.post(`/tensions/:id/${verb}`, handle(deps, (d, ctx, req) => command(d, ctx, String(req.params.id), req.body)));
  }
  router.delete('/tensions/:id', handle(deps, (d, ctx, req) => discardTension(d, ctx, String(req.params.id), deleteInput(req)), { status: 204 }));
  return router;
}
