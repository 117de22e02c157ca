// REST from the operation registry (server/application/operations.ts): one route per entry with a `rest`
// face. Parse → call → map as every route: the path parameters and the body or query string go to the
// use case as given (it validates and authorizes), with a signal that aborts when the client goes (a long
// poll stops waiting); `handle` answers, and makes a POST idempotent (SPEC §12).
import { Router, type Request } from 'express';
import type { Deps } from '../application/context.js';
import { pathParamsOf, type OperationEntry } from '../application/operations.js';
import { OPERATIONS } from '../application/registry.js';
import { ok } from '../domain/errors.js';
import { handle } from './handle.js';

/** The use case's input from the request: its JSON body, its query string, or none. */
function inputOf(entry: OperationEntry, req: Request): unknown {
  const from = entry.rest!.input;
  return from === 'body' ? req.body : from === 'query' ? req.query : undefined;
}

/** One entry's handler, named by its operation so a stack trace and a profile say which route ran. */
export function operationHandler(deps: Deps, entry: OperationEntry) {
  const rest = entry.rest!;
  const names = pathParamsOf(rest.path);
  const handler = handle(
    deps,
    async (d, ctx, req) => {
      const params = Object.fromEntries(names.map((name) => [name, String(req.params[name])]));
      // The response's close, not the socket's: a keep-alive socket outlives its requests, and a listener
      // per request on it piled up (issue 29, 30). `close` fires when the client goes, or when answered.
      const res = req.res!;
      const gone = new AbortController();
      const abort = () => gone.abort();
      res.once('close', abort);
      try {
        const result = await entry.run(d, ctx, params, inputOf(entry, req), gone.signal);
        return result.ok && rest.answer ? ok(rest.answer(result.value)) : result;
      } finally {
        res.removeListener('close', abort);
      }
    },
    { status: rest.status },
  );
  return Object.defineProperty(handler, 'name', { value: `rest ${entry.operation}` });
}

/** Every registry entry's route. */
export function operationRoutes(deps: Deps, entries: readonly OperationEntry[] = OPERATIONS): Router {
  const router = Router();
  for (const entry of entries) if (entry.rest) router[entry.rest.method](entry.rest.path, operationHandler(deps, entry));
  return router;
}
