// Route adapters: parse → call → map. Every REST route goes through `handle`, which also makes every
// POST idempotent when it carries an `Idempotency-Key` header (SPEC §12).
import type { NextFunction, Request, Response } from 'express';
import type { Result } from '../domain/errors.js';
import type { Ctx, Deps } from '../application/context.js';
import { idempotentCall, type Answer, type FaceCall } from '../application/idempotency.js';
import { problemBody, sendProblem } from './problem.js';
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
  /**
   * false: a POST that ignores `Idempotency-Key` (logout: it must end the session it is called with,
   * and a replay of an earlier session's logout would leave the new one open)
   */
  idempotent?: boolean;
}

function send(res: Response, answer: Answer): void {
  if (answer.status === 204) res.status(204).end();
  else if (answer.status >= 400) res.status(answer.status).type('application/problem+json').send(JSON.stringify(answer.body));
  else res.status(answer.status).json(answer.body);
}

/** The call an `Idempotency-Key` may name: POSTs only (login never reaches `handle`), unless the route opts out. */
function faceCall(req: Request, opts: HandleOptions): FaceCall | undefined {
  if (req.method !== 'POST' || opts.idempotent === false) return undefined;
  return { rawKey: req.headers['idempotency-key'], keyField: 'Idempotency-Key', method: req.method, path: `${req.baseUrl}${req.path}`, body: req.body ?? null };
}

export function handle<T>(deps: Deps, call: (deps: Deps, ctx: Ctx, req: Request) => Promise<Result<T>>, opts: HandleOptions = {}) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const ctx = restCtx(req);
      const outcome = await idempotentCall(
        deps,
        ctx,
        faceCall(req, opts),
        () => call(deps, ctx, req),
        // REST keeps its problem document (with the first request's id) and the route's success status
        (result): Answer => {
          if (result.ok) return { status: opts.status ?? 200, body: result.value };
          const problem = problemBody(result, req.requestId);
          return { status: problem.status, body: problem };
        },
      );
      if (!outcome.ok) return sendProblem(res, outcome, req.requestId);
      if (outcome.value.replayed) {
        res.setHeader('Idempotent-Replayed', 'true');
        return send(res, outcome.value.answer);
      }
      // The first attempt answers as any request does (a refusal with its headers: Retry-After, WWW-Authenticate).
      const { result } = outcome.value;
      if (!result.ok) return sendProblem(res, result, req.requestId);
      send(res, { status: opts.status ?? 200, body: result.value });
    } catch (err) {
      next(err);
    }
  };
}
