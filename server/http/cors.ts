// Cross-origin access (SPEC §6): none by default; only origins listed in CORS_ORIGINS get CORS headers,
// with credentials and never a wildcard. The one place any `Access-Control-Allow-*` header is set.
import type { NextFunction, Request, Response } from 'express';
import type { Deps } from '../application/context.js';

const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
const ALLOW_HEADERS = [
  'authorization',
  'content-type',
  'x-csrf-protection',
  'x-request-id',
  'x-correlation-id',
  'idempotency-key',
  'last-event-id',
  'mcp-protocol-version',
  'mcp-session-id',
].join(', ');
const EXPOSE_HEADERS = ['x-request-id', 'retry-after', 'www-authenticate', 'idempotent-replayed', 'mcp-session-id', 'ratelimit', 'ratelimit-policy'].join(', ');

export function cors(deps: Deps) {
  const listed = new Set(deps.config.corsOrigins);
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.get('origin');
    const allowed = origin !== undefined && listed.has(origin);
    // Answers differ by Origin once anything is listed: caches must keep them apart.
    if (listed.size) res.vary('Origin');
    if (allowed) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    }
    // A preflight is answered here, for every path: listed origins get the allowance, others an empty
    // 204 that the browser reads as a refusal (the request itself is then never sent).
    if (req.method === 'OPTIONS' && origin !== undefined && req.get('access-control-request-method') !== undefined) {
      if (allowed) {
        res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
        res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
        res.setHeader('Access-Control-Max-Age', '600');
      }
      return res.status(204).end();
    }
    next();
  };
}

/** The origin of the service itself as this request addressed it (Host, or a trusted proxy's X-Forwarded-Host). */
function ownHost(req: Request): string | null {
  try {
    return new URL(`${req.protocol}://${req.host}`).host;
  } catch {
    return null;
  }
}

/**
 * SPEC §6/§8: an `Origin` that is present and neither the service's own (same host and port as the
 * request) nor listed in CORS_ORIGINS. `null` (sandboxed pages, file://) is always foreign.
 */
export function isForeignOrigin(deps: Deps, req: Request): boolean {
  const origin = req.get('origin');
  if (origin === undefined) return false;
  if (deps.config.corsOrigins.includes(origin)) return false;
  try {
    const host = ownHost(req);
    return host === null || new URL(origin).host !== host;
  } catch {
    return true;
  }
}
