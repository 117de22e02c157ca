// REST: /tensions (SPEC §3–§5). The reads by hand; every command generated from the registry.
// Parse → call → map; the use cases validate and authorize.
import { Router, type Request } from 'express';
import type { Deps } from '../application/context.js';
import {
  getTension,
  getTensionChanges,
  getTensionHistory,
  listTensions,
  runCommand,
  TENSION_COMMANDS,
  type TensionCommandEntry,
} from '../application/tensions/index.js';
import { handle } from './handle.js';

/** `?expectedVersion=N` of DELETE: digits become a number; anything else reaches the schema as is (400). */
function queryInput(req: Request): unknown {
  const v = req.query.expectedVersion;
  if (v === undefined) return {};
  return { expectedVersion: typeof v === 'string' && /^\d{1,10}$/.test(v) ? Number(v) : v };
}

/** The command's input from the request: its JSON body (absent = `{}`), or the query string. */
function commandInput(entry: TensionCommandEntry, req: Request): unknown {
  return entry.rest.input === 'query' ? queryInput(req) : (req.body ?? {});
}

export function tensionsRoutes(deps: Deps): Router {
  const router = Router();
  router.get(
    '/tensions',
    handle(deps, (d, ctx, req) => listTensions(d, ctx, req.query)),
  );
  router.get(
    '/tensions/:id',
    handle(deps, (d, ctx, req) => getTension(d, ctx, String(req.params.id), req.query)),
  );
  router.get(
    '/tensions/:id/history',
    handle(deps, (d, ctx, req) => getTensionHistory(d, ctx, String(req.params.id), req.query)),
  );
  router.get(
    '/tensions/:id/changes',
    handle(deps, (d, ctx, req) => getTensionChanges(d, ctx, String(req.params.id), req.query)),
  );
  for (const entry of TENSION_COMMANDS) {
    // Idempotency-Key (SPEC §12) is `handle`'s, like every POST's.
    const handler = handle(
      deps,
      (d, ctx, req) => runCommand(d, ctx, entry, req.params.id === undefined ? null : String(req.params.id), commandInput(entry, req)),
      {
        status: entry.rest.status,
      },
    );
    // named by its operation, as the operation registry's routes are, so a stack trace and a profile say which command ran
    router[entry.rest.method](entry.rest.path, Object.defineProperty(handler, 'name', { value: `rest ${entry.operation}` }));
  }
  return router;
}
