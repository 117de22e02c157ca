// The REST facade at /api/v1: body rules and errors of SPEC §7, then one router per area.
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { Deps } from '../application/context.js';
import { needsCsrfHeader } from '../http/request-context.js';
import { sendCode, sendProblem } from './problem.js';
import { UNAUTHENTICATED } from '../auth/authenticate.js';
import { authRoutes } from './auth.routes.js';
import { meRoutes } from './me.routes.js';
import { usersRoutes } from './users.routes.js';
import { rolesRoutes } from './roles.routes.js';
import { actorsRoutes } from './actors.routes.js';
import { tensionsRoutes } from './tensions.routes.js';
import { openapiRoutes } from './openapi.routes.js';

export const BODY_LIMIT_BYTES = 102_400;

function hasBody(req: Request): boolean {
  const length = req.get('content-length');
  return (length !== undefined && length !== '0') || req.get('transfer-encoding') !== undefined;
}

function requireJsonBody(req: Request, res: Response, next: NextFunction) {
  if (!hasBody(req) || req.is(['application/json', 'application/*+json'])) return next();
  sendCode(res, 'unsupported_media_type', 'Send the body as application/json.', req.requestId);
}

function requireCaller(req: Request, res: Response, next: NextFunction) {
  if (req.authRefusal) return sendProblem(res, req.authRefusal, req.requestId);
  if (!req.caller) return sendProblem(res, UNAUTHENTICATED(), req.requestId);
  if (needsCsrfHeader(req)) {
    return sendCode(res, 'csrf_required', 'Cookie-authenticated requests that change state must send `X-CSRF-Protection: 1`.', req.requestId);
  }
  next();
}

export function restRouter(deps: Deps): Router {
  const router = Router();
  router.use(requireJsonBody);
  router.use(express.json({ limit: BODY_LIMIT_BYTES, strict: false, type: ['application/json', 'application/*+json'] }));
  router.use(openapiRoutes(deps));
  // Public: login answers anonymous callers; everything after needs a caller.
  router.use(authRoutes(deps, requireCaller));
  router.use(requireCaller);
  router.use(meRoutes(deps));
  router.use(usersRoutes(deps));
  router.use(rolesRoutes(deps));
  router.use(actorsRoutes(deps));
  router.use(tensionsRoutes(deps));
  router.use((req: Request, res: Response) => {
    sendCode(res, 'not_found', `No route ${req.method} ${req.baseUrl}${req.path}.`, req.requestId);
  });
  router.use(restErrors(deps));
  return router;
}

type BodyParserError = Error & { type?: string; status?: number };

/** Maps body-parser failures to their codes; anything else is a 500 that carries only the request id. */
export function restErrors(_deps: Deps) {
  return (err: BodyParserError, req: Request, res: Response, _next: NextFunction) => {
    // A path segment that is not valid percent-encoded UTF-8 cannot name anything (SPEC §3: 404).
    if (err instanceof URIError) return sendCode(res, 'not_found', 'No such resource.', req.requestId);
    switch (err.type) {
      case 'entity.parse.failed':
        return sendCode(res, 'invalid_json', 'The body is not valid JSON.', req.requestId);
      case 'entity.too.large':
        return sendCode(res, 'payload_too_large', `The body is over ${BODY_LIMIT_BYTES} bytes.`, req.requestId);
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return sendCode(res, 'unsupported_media_type', 'Send the body as UTF-8 JSON.', req.requestId);
      case 'request.aborted':
      case 'request.size.invalid':
        return sendCode(res, 'invalid_json', 'The body could not be read.', req.requestId);
    }
    req.log.error({ err }, 'unhandled error');
    res.status(500).type('application/problem+json').send(
      JSON.stringify({ type: 'urn:market-service:problem:internal', title: 'Internal error', status: 500, code: 'internal', requestId: req.requestId }),
    );
  };
}
