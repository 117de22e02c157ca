// Route adapters: parse → call → map. Every REST route goes through `handle`, which also makes every
// POST idempotent when it carries an `Idempotency-Key` header (SPEC §12).
import type { NextFunction, Request, Response } from 'express';
import type { Refusal, Result } from '../domain/errors.js';
import type { Ctx, Deps } from '../application/context.js';
import { idempotentCall, type Answer, type FaceCall } from '../application/idempotency.js';
import { problemBody, problemHeaders } from './problem.js';
import { clientAddress } from '../http/session-cookie.js';
import { correlationOf } from '../http/request-context.js';

/** The use-case context of an authenticated REST request (the router refuses anonymous ones first). */
export function restCtx(req: Request): Ctx {
  if (!req.caller) throw new Error('restCtx on an unauthenticated request');
  return { caller: req.caller, via: 'rest', requestId: req.requestId, clientAddress: clientAddress(req), ...correlationOf(req.get('x-correlation-id')) };
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

/** What a REST call answers, before any lane writes it: the status, the JSON body (none for 204), its extra headers. */
export interface RestReply {
  status: number;
  body: unknown;
  /** the body is a problem document (application/problem+json) */
  problem: boolean;
  headers: [string, string][];
}

export function refusalReply(refusal: Refusal, requestId: string): RestReply {
  const { status, headers } = problemHeaders(refusal);
  return { status, body: problemBody(refusal, requestId), problem: true, headers };
}

/**
 * Runs one REST call (idempotently when `face` names a key, SPEC §12) and reads its outcome as the answer
 * to send: the one reading of both lanes (Express's `handle`, and the command lane of server/http/command-lane.ts).
 */
export async function restReply<T>(deps: Deps, ctx: Ctx, face: FaceCall | undefined, run: () => Promise<Result<T>>, status: number): Promise<RestReply> {
  const outcome = await idempotentCall(
    deps,
    ctx,
    face,
    run,
    // REST keeps its problem document (with the first request's id) and the route's success status
    (result): Answer => {
      if (result.ok) return { status, body: result.value };
      const problem = problemBody(result, ctx.requestId);
      return { status: problem.status, body: problem };
    },
  );
  if (!outcome.ok) return refusalReply(outcome, ctx.requestId);
  if (outcome.value.replayed) {
    const { answer } = outcome.value;
    return { status: answer.status, body: answer.body, problem: answer.status >= 400, headers: [['Idempotent-Replayed', 'true']] };
  }
  // The first attempt answers as any request does (a refusal with its headers: Retry-After, WWW-Authenticate).
  const { result } = outcome.value;
  if (!result.ok) return refusalReply(result, ctx.requestId);
  return { status, body: result.value, problem: false, headers: [] };
}

function send(res: Response, reply: RestReply): void {
  for (const [name, value] of reply.headers) res.setHeader(name, value);
  if (reply.status === 204) res.status(204).end();
  else if (reply.problem) res.status(reply.status).type('application/problem+json').send(JSON.stringify(reply.body));
  else res.status(reply.status).json(reply.body);
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
      send(res, await restReply(deps, ctx, faceCall(req, opts), () => call(deps, ctx, req), opts.status ?? 200));
    } catch (err) {
      next(err);
    }
  };
}
