// Issue 30: a logout always ends the session it is called with. Idempotent replays are scoped to the
// user, so a logout replayed under a key an earlier session used answered 204 and left the new session
// open; logout now takes no Idempotency-Key (it is safe to repeat without one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client } from '../../support/clients.js';
import { login, PASSWORD, seedHuman } from '../../support/sessions.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

const session = (token: string, idempotencyKey?: string) =>
  client(app, undefined, {
    cookie: `session=${token}`,
    'x-csrf-protection': '1',
    ...(idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey } : {}),
  });

describe('POST /auth/logout with an Idempotency-Key', () => {
  it('a later session logging out under the key an earlier logout used is ended, not answered with a replay', async () => {
    const human = await seedHuman(app, []);
    const key = `logout-${crypto.randomUUID()}`;
    const first = await session(human.token, key).post('/auth/logout');
    expect(first.status).toBe(204);
    expect((await session(human.token).get('/auth/me')).status).toBe(401);

    const again = await login(app, human.email, PASSWORD);
    expect(again.status).toBe(200);
    const out = await session(again.token!, key).post('/auth/logout');
    expect(out.status).toBe(204);
    expect(out.headers.get('idempotent-replayed')).toBeNull();
    expect(out.headers.get('set-cookie')).toMatch(/^session=;/);
    expect((await session(again.token!).get('/auth/me')).status).toBe(401);
    const [{ open }] = await app
      .em()
      .execute<{ open: number }[]>('select count(*)::int as open from sessions where user_id = ? and revoked_at is null', [human.userId]);
    expect(open).toBe(0);
    // nothing kept for a logout
    expect((await app.em().execute<{ n: number }[]>('select count(*)::int as n from idempotency_keys where idempotency_key = ?', [key]))[0].n).toBe(0);
  });

  it('the key is ignored whatever it holds (as on login): no 400 or 5xx for a malformed one, and the session ends', async () => {
    for (const bad of ['x'.repeat(256), '', ' ']) {
      const human = await seedHuman(app, []);
      const out = await session(human.token, bad).post('/auth/logout');
      expect(out.status, JSON.stringify(bad)).toBe(204);
      expect((await session(human.token).get('/auth/me')).status).toBe(401);
    }
  });

  it('a logout repeated once the session has ended is 401 (nothing left to end), never a replayed 204', async () => {
    const human = await seedHuman(app, []);
    const key = `twice-${crypto.randomUUID()}`;
    expect((await session(human.token, key).post('/auth/logout')).status).toBe(204);
    const twice = await session(human.token, key).post('/auth/logout');
    expect(twice.status).toBe(401);
    expect(twice.headers.get('idempotent-replayed')).toBeNull();
  });
});
