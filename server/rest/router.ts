// The REST facade at /api/v1: body rules and errors of SPEC §7, then one router per area.
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Deps } from '../application/context.js';
import type { Logger } from '../logger.js';
import { needsCsrfHeader } from '../http/request-context.js';
import { sendCode, sendInternalProblem, sendProblem } from './problem.js';
import { UNAUTHENTICATED } from '../auth/authenticate.js';
import { authRoutes } from './auth.routes.js';
import { oidcRoutes } from './oidc.routes.js';
import { operationRoutes } from './operations.routes.js';
import { tensionsRoutes } from './tensions.routes.js';
import { openapiRoutes } from './openapi.routes.js';
import { eventsRoutes } from './events.routes.js';
import { exportRoutes } from './export.routes.js';
import { BODY_LIMIT_BYTES, bodyRefusal } from '../http/body.js';
import { isTransientDatabaseError } from '../persistence/transient.js';
import { unavailable } from '../http/unavailable.js';
import { refuse, validationFailed, type Refusal } from '../domain/errors.js';
import { methodNotAllowed } from './method-not-allowed.js';

function hasBody(req: Request): boolean {
  const length = req.get('content-length');
  return (length !== undefined && length !== '0') || req.get('transfer-encoding') !== undefined;
}

function requireJsonBody(req: Request, res: Response, next: NextFunction) {
  if (!hasBody(req) || req.is(['application/json', 'application/*+json'])) return next();
  sendCode(res, 'unsupported_media_type', 'Send the body as application/json.', req.requestId);
}

/** SPEC §5: a PATCH body is a JSON object on every resource; `null`, an array or a scalar is not a change. */
function requirePatchObject(req: Request, res: Response, next: NextFunction) {
  const body: unknown = req.body;
  if (req.method !== 'PATCH' || body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body))) return next();
  sendProblem(
    res,
    validationFailed(
      [{ path: '(root)', message: 'must be a JSON object', code: 'invalid_type', params: { expected: 'object' } }],
      'The body of a change must be a JSON object of the fields to change.',
    ),
    req.requestId,
  );
}

/**
 * Refuses a request without a caller (or a cookie request without the CSRF header); `wrongMethod` is asked
 * first, so a method the path does not serve is 405 whoever calls (SPEC §5). Asked only on the way to a
 * refusal, it costs a served request nothing.
 */
function callerRefusal(req: Request): Refusal | null {
  if (req.authRefusal) return req.authRefusal;
  if (!req.caller) return UNAUTHENTICATED();
  if (needsCsrfHeader(req)) return refuse('csrf_required', 'Cookie-authenticated requests that change state must send the header X-CSRF-Protection: 1.');
  return null;
}

function callerRequired(wrongMethod: () => RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const refusal = callerRefusal(req);
    if (!refusal) return next();
    wrongMethod()(req, res, () => sendProblem(res, refusal, req.requestId));
  };
}

type RouteLayer = { route?: { path: unknown } };

/** A route path's first segment, lower-cased (the routers match case-insensitively); undefined when it starts with a parameter or a pattern. */
function firstSegment(path: unknown): string | undefined {
  return typeof path === 'string' ? /^\/([\w.-]+)(?:\/|$)/.exec(path)?.[1]?.toLowerCase() : undefined;
}

/**
 * `router`, asked only by requests whose path starts with a first segment one of its routes starts with.
 * Express tries every route of every area router in turn: a REST rescore tested about 70 routes of the
 * identity, webhook and auth areas before its own, 100 layer matches a request (issue 37, the hot path).
 * A router with a layer that is not a route (middleware of its own), or a route starting with a parameter
 * or a pattern, is asked by every request, as before. What a request gets is unchanged: a router skipped
 * here has no route its path could match.
 */
export function onlyOnItsPaths(router: Router): RequestHandler {
  const segments = new Set<string>();
  for (const layer of (router as unknown as { stack: RouteLayer[] }).stack) {
    const paths = Array.isArray(layer.route?.path) ? (layer.route.path as unknown[]) : [layer.route?.path];
    for (const path of paths) {
      const first = firstSegment(path);
      if (first === undefined) return router;
      segments.add(first);
    }
  }
  const dispatch = (req: Request, res: Response, next: NextFunction) => {
    const path = req.path;
    const end = path.indexOf('/', 1);
    return segments.has((end === -1 ? path.slice(1) : path.slice(1, end)).toLowerCase()) ? router(req, res, next) : next();
  };
  // its routes stay listed where the stack is read (the 405 probe's walk, the route sweeps of the tests)
  return Object.assign(dispatch, { stack: (router as unknown as { stack: RouteLayer[] }).stack });
}

export function restRouter(deps: Deps): Router {
  const router = Router();
  // (the probe is made from the routers, which take requireCaller: it is looked up at request time)
  const requireCaller = callerRequired(() => probe);
  const publicRoutes = [openapiRoutes(deps), authRoutes(deps, requireCaller), oidcRoutes(deps)];
  const guarded = [operationRoutes(deps), tensionsRoutes(deps), eventsRoutes(deps), exportRoutes(deps)];
  const probe = methodNotAllowed([...publicRoutes, ...guarded]);
  router.use(requireJsonBody);
  router.use(express.json({ limit: BODY_LIMIT_BYTES, strict: false, type: ['application/json', 'application/*+json'] }));
  router.use(requirePatchObject);
  // Public: the API documents and login answer anonymous callers; everything after needs a caller.
  for (const r of publicRoutes) router.use(onlyOnItsPaths(r));
  router.use(requireCaller);
  for (const r of guarded) router.use(onlyOnItsPaths(r));
  // No route answered: a known path asked with another method is 405, anything else 404.
  router.use((req: Request, res: Response) => {
    probe(req, res, () => sendCode(res, 'not_found', `No route ${req.method} ${req.baseUrl}${req.path}.`, req.requestId));
  });
  router.use(restErrors(deps));
  return router;
}

/**
 * Maps body-parser failures to their codes, a database that cannot serve for now to 503 `unavailable`
 * with Retry-After; anything else is a 500 that carries only the request id.
 */
export function restErrors(_deps: Deps) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const refusal = bodyRefusal(err);
    if (refusal) return sendProblem(res, refusal, req.requestId);
    if (res.headersSent) {
      req.log.error({ err }, 'failed after the answer began');
      return void res.end();
    }
    const failure = failureRefusal(err, req.log);
    if (failure) return sendProblem(res, failure, req.requestId);
    sendInternalProblem(res, req.requestId);
  };
}

/**
 * What a request that failed with `err` answers, once its answer has not begun: a database that cannot serve
 * for now is 503 `unavailable` with Retry-After (logged as a warning); anything else is a bug, logged whole,
 * and null: a 500 that carries only the request id. Both REST lanes (`restErrors`, the command lane) read it.
 */
export function failureRefusal(err: unknown, log: Pick<Logger, 'warn' | 'error'>): Refusal | null {
  if (isTransientDatabaseError(err)) {
    log.warn({ err }, 'database unavailable');
    return unavailable();
  }
  log.error({ err }, 'unhandled error');
  return null;
}
