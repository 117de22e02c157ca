// The session cookie's JWT: its HMAC key is made once per secret (server/auth/session-token.ts), and the
// memo must never let one secret's token pass under another.
import { describe, expect, it } from 'vitest';
import { hmacKey, signSessionToken, verifySessionToken } from '../../server/auth/session-token.js';

const claims = { userId: '00000000-0000-4000-8000-000000000001', sessionId: '00000000-0000-4000-8000-000000000002' };
const inAnHour = () => new Date(Date.now() + 3_600_000);

describe('session token', () => {
  it('makes one key per secret, and a different key for every other secret', () => {
    const a = 'a'.repeat(40);
    expect(hmacKey(a)).toBe(hmacKey(a));
    expect(hmacKey(a).equals(hmacKey(`${a}x`))).toBe(false);
    // the same bytes given as text or as a Buffer are the same key
    expect(hmacKey(Buffer.from(a)).equals(hmacKey(a))).toBe(true);
  });

  it('verifies a token under the secret that signed it, and under no other (also after the memo was cleared)', () => {
    const secrets = Array.from({ length: 40 }, (_, i) => `secret-${i}-${'s'.repeat(32)}`); // more than the memo keeps
    const tokens = secrets.map((s) => signSessionToken(s, claims, inAnHour()));
    secrets.forEach((secret, i) => {
      expect(verifySessionToken(secret, tokens[i])).toEqual(claims);
      expect(verifySessionToken(secret, tokens[(i + 1) % secrets.length])).toBeNull();
    });
  });

  it('refuses an unsigned token', () => {
    const secret = 'e'.repeat(40);
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const body = Buffer.from(JSON.stringify({ sub: claims.userId, sid: claims.sessionId })).toString('base64url');
    expect(verifySessionToken(secret, `${header}.${body}.`)).toBeNull();
  });
});
