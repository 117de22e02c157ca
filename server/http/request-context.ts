// Per-request plumbing shared by every HTTP face: request id, child logger, and who is calling.
import { randomUUID } from 'node:crypto';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger.js';
import { activeTraceId } from '../tracing.js';
import { laneFindings } from './lane-handover.js';
import type { Caller, Deps } from '../application/context.js';
import type { Refusal, Result } from '../domain/errors.js';
import { authenticateSession, bearerToken, UNAUTHENTICATED } from '../auth/authenticate.js';
import { SESSION_COOKIE } from '../auth/session-token.js';
import { clientAddress } from './session-cookie.js';

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
    log: Logger;
    /** null: anonymous. Set by `authenticateRequest`. */
    caller: Caller | null;
    /** a presented but invalid bearer key */
    authRefusal: Refusal | null;
  }
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The current request's logger, for code that is handed no request (GraphQL's error masking). */
export const requestLog = new AsyncLocalStorage<Logger>();

/** The request's id: the caller's `X-Request-Id` when it is a sane one, else a new one. */
export function requestIdOf(incoming: string | undefined): string {
  return incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** The longest `X-Correlation-Id` a use case records; a longer one is ignored, as an absent one. */
export const CORRELATION_ID_MAX = 128;

/** The caller's `X-Correlation-Id` as the use-case context carries it (every face, either lane): present and short enough, or nothing. */
export function correlationOf(header: string | undefined): { correlationId?: string } {
  return header && header.length <= CORRELATION_ID_MAX ? { correlationId: header } : {};
}

/** What one access line says of an answered request (SPEC §9). */
export interface AccessFields {
  requestId: string;
  method: string;
  path: string;
  status: number;
  client: string;
  userId: string | null;
  apiKeyId: string | null;
  ms: number;
  traceId?: string;
}

/**
 * The access line's logger. Its fields are fixed and none is a secret: it is written without the
 * redaction every other line goes through (its wildcard paths cost ~10 µs a line; issue 37). The request
 * id leads the line as the request's logger would have put it.
 */
export function accessLog(deps: Deps): (fields: AccessFields) => void {
  const access = deps.logger.child({}, { redact: [] });
  return (fields) => access.info(fields, 'request');
}

export function requestContext(deps: Deps, logAccess: (fields: AccessFields) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    req.requestId = requestIdOf(req.get('x-request-id'));
    req.log = deps.logger.child({ requestId: req.requestId });
    req.caller = null;
    req.authRefusal = null;
    res.setHeader('X-Request-Id', req.requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logAccess({
        requestId: req.requestId,
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        client: clientAddress(req),
        // who called: the access log answers "which key did this" without a join
        userId: req.caller?.userId ?? null,
        apiKeyId: req.caller?.apiKey?.id ?? null,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        // outside the request's async context here, so the mixin cannot add it
        ...(res.locals.traceId && !activeTraceId() ? { traceId: res.locals.traceId as string } : {}),
      });
    });
    requestLog.run(req.log, next);
  };
}

/** Parses a Cookie header without a dependency on express' cookie parser ordering. */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** Who a bearer API key stands for; the service's is `authenticateApiKey` (AppOptions.verifyBearer). */
export type VerifyBearer = (bearer: string) => Promise<Result<Caller>>;

/** A bearer key wins over a cookie; a bad bearer is refused, a bad cookie is just anonymous. */
export function authenticateRequest(deps: Deps, verifyBearer: VerifyBearer) {
  return async (req: Request, _res: Response, next: NextFunction) => {
    try {
      const bearer = bearerToken(req.get('authorization'));
      if (bearer === null) {
        req.authRefusal = UNAUTHENTICATED('The Authorization header must be the word Bearer followed by an API key.');
      } else if (bearer !== undefined) {
        // a request the command lane left here: its verdict on the key, not a second lookup (lane-handover.ts)
        const result = laneFindings(req)?.verified ?? (await verifyBearer(bearer));
        if (result.ok) req.caller = result.value;
        else req.authRefusal = result;
      } else {
        const token = readCookie(req, SESSION_COOKIE);
        if (token) req.caller = await authenticateSession(deps, token);
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** SPEC §6: a cookie-authenticated unsafe request must carry `X-CSRF-Protection: 1`. */
export function needsCsrfHeader(req: Request): boolean {
  return req.caller?.authenticatedBy === 'session' && !SAFE_METHODS.has(req.method) && req.get('x-csrf-protection') !== '1';
}
