// Request rate limit per API key, and per client address for anonymous callers (including a presented
// but invalid key, so keys cannot be guessed at speed). Fixed one-minute windows kept in memory: the
// limit is per instance, by design — N instances allow up to N × the limit.
import type { NextFunction, Request, Response } from 'express';
import type { Deps } from '../application/context.js';
import { clientAddress } from './session-cookie.js';
import { sendProblem } from '../rest/problem.js';
import { refuse } from '../domain/errors.js';

const WINDOW_MS = 60_000;
/** above this many tracked callers, expired windows are swept */
const SWEEP_ABOVE = 10_000;
/** The one policy's name in the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers). */
const POLICY = 'default';

/** The windows of one app: shared by its two lanes (Express's middleware below, the command lane). */
export interface RequestLimiter {
  /** 0: no limit */
  readonly limit: number;
  /** the request would be over the limit (nothing counted) */
  wouldRefuse(bucket: string): boolean;
  /** counts one request; `headers`: the quota and what is left of it, for a key's holder */
  take(bucket: string): { over: boolean; reset: number; headers: [string, string][] };
}

export function requestLimiter(deps: Deps): RequestLimiter {
  const limit = deps.config.rateLimitPerMinute;
  const windows = new Map<string, { start: number; count: number }>();
  const current = (bucket: string, now: number) => {
    const w = windows.get(bucket);
    return w && now - w.start < WINDOW_MS ? w : undefined;
  };
  return {
    limit,
    wouldRefuse: (bucket) => limit !== 0 && (current(bucket, deps.clock().getTime())?.count ?? 0) >= limit,
    take(bucket) {
      const now = deps.clock().getTime();
      let w = current(bucket, now);
      if (!w) {
        if (windows.size > SWEEP_ABOVE) for (const [k, v] of windows) if (now - v.start >= WINDOW_MS) windows.delete(k);
        w = { start: now, count: 0 };
        windows.set(bucket, w);
      }
      const count = ++w.count;
      const reset = Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
      // A key's holder sees its quota and what is left of it on every answer, so it can pace itself.
      const headers: [string, string][] = bucket.startsWith('key:')
        ? [
            ['RateLimit-Policy', `"${POLICY}";q=${limit};w=${WINDOW_MS / 1000}`],
            ['RateLimit', `"${POLICY}";r=${Math.max(0, limit - count)};t=${reset}`],
          ]
        : [];
      return { over: count > limit, reset, headers };
    },
  };
}

/** Who a request is counted as: its key, or its client address when anonymous; null for a session (not limited here). */
export function limitBucket(caller: Request['caller'], client: () => string): string | null {
  if (caller?.authenticatedBy === 'api_key') return `key:${caller.apiKey!.id}`;
  if (!caller) return `client:${client()}`;
  return null;
}

export function rateLimit(limiter: RequestLimiter, deps: Deps) {
  const limit = limiter.limit;
  return (req: Request, res: Response, next: NextFunction) => {
    if (limit === 0) return next();
    // Session callers are people at the admin app; the login throttle guards how sessions begin.
    const bucket = limitBucket(req.caller, () => clientAddress(req));
    if (bucket === null) return next();
    const { over, reset, headers } = limiter.take(bucket);
    for (const [name, value] of headers) res.setHeader(name, value);
    if (!over) return next();
    deps.metrics.rateLimited('request');
    const retryAfter = reset;
    res.setHeader('Retry-After', String(retryAfter));
    const detail = `Too many requests: at most ${limit} a minute. Try again in ${retryAfter} seconds.`;
    if (req.path.startsWith('/graphql')) {
      return res.status(429).json({ errors: [{ message: detail, extensions: { code: 'RATE_LIMITED', retryAfterSeconds: retryAfter } }] });
    }
    if (req.path.startsWith('/mcp')) {
      return res
        .status(429)
        .json({ jsonrpc: '2.0', error: { code: -32000, message: detail, data: { code: 'rate_limited', retryAfterSeconds: retryAfter } }, id: null });
    }
    sendProblem(res, refuse('rate_limited', detail, { retryAfterSeconds: retryAfter }), req.requestId);
  };
}
