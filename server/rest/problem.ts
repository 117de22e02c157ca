// RFC 9457 problem documents: the one place a refusal becomes an HTTP answer on the REST face.
import type { Response } from 'express';
import { refuse, type ErrorCode, type Refusal } from '../domain/errors.js';
import { REFUSAL_STATUS, REFUSAL_TITLE } from '../http/refusal-status.js';

export function problemBody(refusal: Refusal, requestId: string) {
  return {
    type: `urn:market-service:problem:${refusal.code}`,
    title: REFUSAL_TITLE[refusal.code],
    status: REFUSAL_STATUS[refusal.code],
    code: refusal.code,
    detail: refusal.detail,
    requestId,
    ...refusal.extensions,
  };
}

/** A problem's status and the headers it carries (WWW-Authenticate on a 401, Retry-After when there is one): the one reading every lane writes. */
export function problemHeaders(refusal: Refusal): { status: number; headers: [string, string][] } {
  const status = REFUSAL_STATUS[refusal.code];
  const headers: [string, string][] = [];
  if (status === 401) headers.push(['WWW-Authenticate', 'Bearer']);
  if ((refusal.code === 'rate_limited' || refusal.code === 'unavailable') && typeof refusal.extensions?.retryAfterSeconds === 'number') {
    headers.push(['Retry-After', String(refusal.extensions.retryAfterSeconds)]);
  }
  return { status, headers };
}

export function sendProblem(res: Response, refusal: Refusal, requestId: string): void {
  const { status, headers } = problemHeaders(refusal);
  for (const [name, value] of headers) res.setHeader(name, value);
  res
    .status(status)
    .type('application/problem+json')
    .send(JSON.stringify(problemBody(refusal, requestId)));
}

/** A 500: the request id and nothing internal (no detail). */
export function sendInternalProblem(res: Response, requestId: string): void {
  res
    .status(500)
    .type('application/problem+json')
    .send(JSON.stringify(internalProblemBody(requestId)));
}

export function internalProblemBody(requestId: string) {
  const { detail: _none, ...body } = problemBody(refuse('internal', ''), requestId);
  return body;
}

export function sendCode(res: Response, code: ErrorCode, detail: string, requestId: string): void {
  sendProblem(res, refuse(code, detail), requestId);
}
