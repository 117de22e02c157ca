// The session cookie's JWT: HS256 only, carrying the user id and the server-side session id, nothing else.
import jwt from 'jsonwebtoken';
import { UUID_RE } from '../domain/ids.js';

export const SESSION_COOKIE = 'session';

export interface SessionClaims {
  userId: string;
  sessionId: string;
}

export function signSessionToken(secret: string, claims: SessionClaims, expiresAt: Date): string {
  return jwt.sign({ sid: claims.sessionId }, secret, {
    algorithm: 'HS256',
    subject: claims.userId,
    expiresIn: Math.max(1, Math.floor((expiresAt.getTime() - Date.now()) / 1000)),
  });
}

export function verifySessionToken(secret: string, token: string): SessionClaims | null {
  try {
    const payload = jwt.verify(token, secret, { algorithms: ['HS256'] });
    if (typeof payload !== 'object' || typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return null;
    // Not UUIDs: refuse here rather than let the database fail the cast (a 500).
    if (!UUID_RE.test(payload.sub) || !UUID_RE.test(payload.sid)) return null;
    return { userId: payload.sub, sessionId: payload.sid };
  } catch {
    return null;
  }
}
