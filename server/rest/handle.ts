// Route adapters: parse → call → map. Every REST route goes through `handle`.
import type { NextFunction, Request, Response } from 'express';
import type { Result } from '../domain/errors.js';
import type { Ctx, Deps } from '../application/context.js';
import { sendProblem } from './problem.js';
import { clientAddress } from '../http/session-cookie.js';

/** The use-case context of an authenticated REST request (the router refuses anonymous ones first). */
export function restCtx(req: Request): Ctx {
  if (!req.caller) throw new Error('restCtx on an unauthenticated request');
  const correlationId = req.get('x-correlation-id');
  return {
    caller: req.caller,
    via: 'rest',
    requestId: req.requestId,
    clientAddress: clientAddress(req),
    ...(correlationId && correlationId.length <= 128 ? { correlationId } : {}),
  };
}

export interface HandleOptions {
  /** success status; 204 sends no body */
  status?: number;
}

export function handle<T>(
  deps: Deps,
  call: (deps: Deps, ctx: Ctx, req: Request) => Promise<Result<T>>,
  opts: HandleOptions = {},
) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const result = await call(deps, restCtx(req), req);
      if (!result.ok) return sendProblem(res, result, req.requestId);
      const status = opts.status ?? 200;
      if (status === 204) res.status(204).end();
      else res.status(status).json(result.value);
    } catch (err) {
      next(err);
    }
  };
}
