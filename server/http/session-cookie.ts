// The session cookie (SPEC §6): HttpOnly, SameSite=Strict, Path=/, Secure over HTTPS or in production.
import type { Request, Response } from 'express';
import type { Deps } from '../application/context.js';
import { SESSION_COOKIE } from '../auth/session-token.js';

function options(deps: Deps, req: Request) {
  return { httpOnly: true, sameSite: 'strict' as const, path: '/', secure: req.secure || deps.config.env === 'production' };
}

export function setSessionCookie(deps: Deps, req: Request, res: Response, token: string, maxAgeMs: number): void {
  res.cookie(SESSION_COOKIE, token, { ...options(deps, req), maxAge: maxAgeMs });
}

export function clearSessionCookie(deps: Deps, req: Request, res: Response): void {
  res.clearCookie(SESSION_COOKIE, options(deps, req));
}

/** The client for throttles, logs and the audit trail: the peer, or what a proxy trusted by TRUST_PROXY forwarded. */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
