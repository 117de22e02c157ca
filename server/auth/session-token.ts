// The session cookie's JWT: HS256 only, carrying the user id and the server-side session id, nothing else.
import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { UUID_RE } from '../domain/ids.js';

export const SESSION_COOKIE = 'session';

export interface SessionClaims {
  userId: string;
  sessionId: string;
}

const keys = new Map<string, KeyObject>();
const MAX_KEYS = 16;

/**
 * The HMAC key of a secret, made once. Given a string or a Buffer, jsonwebtoken first tries to parse it as
 * a public (verify) or private (sign) key, and only after that parse throws makes a secret key: about 0.5 ms
 * of CPU on every call, that is on every request a session cookie authenticates. A KeyObject skips that.
 * The secrets are the server's own (one per running app), so the map stays small; it is bounded all the same.
 */
export function hmacKey(secret: string | Buffer): KeyObject {
  const id = typeof secret === 'string' ? `s:${secret}` : `b:${secret.toString('base64')}`;
  let key = keys.get(id);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.clear();
    key = createSecretKey(typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret);
    keys.set(id, key);
  }
  return key;
}

export function signSessionToken(secret: string, claims: SessionClaims, expiresAt: Date): string {
  return jwt.sign({ sid: claims.sessionId }, hmacKey(secret), {
    algorithm: 'HS256',
    subject: claims.userId,
    expiresIn: Math.max(1, Math.floor((expiresAt.getTime() - Date.now()) / 1000)),
  });
}

export function verifySessionToken(secret: string, token: string): SessionClaims | null {
  try {
    const payload = jwt.verify(token, hmacKey(secret), { algorithms: ['HS256'] });
    if (typeof payload !== 'object' || typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return null;
    // Not UUIDs: refuse here rather than let the database fail the cast (a 500).
    if (!UUID_RE.test(payload.sub) || !UUID_RE.test(payload.sid)) return null;
    return { userId: payload.sub, sessionId: payload.sid };
  } catch {
    return null;
  }
}
