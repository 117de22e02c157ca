// Route adapters: parse → call → map. Every REST route goes through `handle`, which also makes every
// POST idempotent when it carries an `Idempotency-Key` header (SPEC §12).
import type { NextFunction, Request, Response } from 'express';
import type { Result } from '../domain/errors.js';
import type { Ctx, Deps } from '../application/context.js';
import { idempotently, parseIdempotencyKey, type Answer, type IdempotentRequest } from '../application/idempotency.js';
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

/** The request an `Idempotency-Key` names (POST only; login never reaches `handle`), or a refusal of a malformed key. */
function idempotentRequest(req: Request, opts: HandleOptions): Result<IdempotentRequest | undefined> {
  if (req.method !== 'POST' || opts.idempotent === false) return { ok: true, value: undefined };
  const key = parseIdempotencyKey(req.headers['idempotency-key'], 'Idempotency-Key');
  if (!key.ok || key.value === undefined) return key.ok ? { ok: true, value: undefined } : key;
  return { ok: true, value: { key: key.value, method: req.method, path: `${req.baseUrl}${req.path}`, body: req.body ?? null } };
}

export function handle<T>(deps: Deps, call: (deps: Deps, ctx: Ctx, req: Request) => Promise<Result<T>>, opts: HandleOptions = {}) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const idempotent = idempotentRequest(req, opts);
      if (!idempotent.ok) return sendProblem(res, idempotent, req.requestId);
      const ctx = restCtx(req);
      let first: Result<T> | undefined;
      const outcome = await idempotently(deps, ctx, idempotent.value, async () => {
        first = await call(deps, ctx, req);
        if (first.ok) return { status: opts.status ?? 200, body: first.value };
        const problem = problemBody(first, req.requestId);
        return { status: problem.status, body: problem };
      });
      if (!outcome.ok) return sendProblem(res, outcome, req.requestId);
      if (outcome.value.replayed) {
        res.setHeader('Idempotent-Replayed', 'true');
        return send(res, outcome.value.answer);
      }
      // The first attempt answers as any request does (a refusal with its headers: Retry-After, WWW-Authenticate).
      if (first && !first.ok) return sendProblem(res, first, req.requestId);
      send(res, outcome.value.answer);
    } catch (err) {
      next(err);
    }
  };
}
