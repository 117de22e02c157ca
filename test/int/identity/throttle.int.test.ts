import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { login, PASSWORD, seedHuman } from '../../support/sessions.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function rawLogin(email: string, password: string) {
  const res = await fetch(`${app.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  return { status: res.status, code: (await res.json()).code as string | undefined, retryAfter: res.headers.get('retry-after') };
}

describe('login throttling (SPEC §6)', () => {
  it('the 11th failed attempt for one email in 15 minutes is 429 with Retry-After, even with the right password', async () => {
    const h = await seedHuman(app, []);
    for (let i = 0; i < 10; i++) expect((await login(app, h.email, `wrong-password-${i}`)).status).toBe(401);
    const res = await fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: h.email.toUpperCase(), password: PASSWORD }),
    });
    expect(res.status).toBe(429);
    expect((await res.json()).code).toBe('rate_limited');
    const retry = Number(res.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(15 * 60);
  });

  it("a successful login resets the email's count", async () => {
    const h = await seedHuman(app, []);
    for (let i = 0; i < 9; i++) await login(app, h.email, `wrong-password-${i}`);
    expect((await login(app, h.email, PASSWORD)).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await login(app, h.email, `wrong-password-${i}`)).status).toBe(401);
    expect((await login(app, h.email, PASSWORD)).status).toBe(429);
  });

  it('a burst of 40 simultaneous attempts for one email (39 wrong, 1 right): at most 10 are evaluated, the rest 429', async () => {
    const h = await seedHuman(app, []);
    const attempts = Array.from({ length: 40 }, (_, i) => (i === 20 ? PASSWORD : `wrong-password-${i}`));
    const answers = await Promise.all(attempts.map((password) => rawLogin(h.email, password)));
    const evaluated = answers.filter((a) => a.status !== 429);
    expect(evaluated.length).toBeLessThanOrEqual(10);
    expect(evaluated.length).toBeGreaterThan(0);
    for (const a of evaluated) expect([200, 401]).toContain(a.status);
    for (const a of answers.filter((x) => x.status === 429)) {
      expect(a.code).toBe('rate_limited');
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
    const [{ n }] = await app.em().execute('select count(*)::int as n from login_attempts where email = ?', [h.email]);
    expect(n).toBeLessThanOrEqual(10);
  });

  it('100 failures from one client in the window block that client for every email', async () => {
    const h = await seedHuman(app, []);
    await login(app, `probe-${randomUUID()}@test.example`, 'wrong-password');
    const [{ client }] = await app.em().execute('select client from login_attempts order by attempted_at desc limit 1');
    const em = app.em();
    for (let i = 0; i < 99; i++) {
      await em.execute(`insert into login_attempts (id, email, client, attempted_at) values (?, ?, ?, now())`, [
        randomUUID(),
        `other-${i}@test.example`,
        client,
      ]);
    }
    const res = await login(app, h.email, PASSWORD);
    expect(res.status).toBe(429);
  });

  it('the per-client limit holds under a burst too: 5 attempts left, 20 simultaneous ones for fresh emails → at most 5 evaluated', async () => {
    await login(app, `probe-${randomUUID()}@test.example`, 'wrong-password');
    const em = app.em();
    const [{ client }] = await em.execute('select client from login_attempts order by attempted_at desc limit 1');
    // Exactly 95 counted failures for this client, whatever earlier tests left.
    await em.execute('delete from login_attempts where client = ?', [client]);
    for (let i = 0; i < 95; i++) {
      await em.execute(`insert into login_attempts (id, email, client, attempted_at) values (?, ?, ?, now())`, [
        randomUUID(),
        `filler-${i}@test.example`,
        client,
      ]);
    }
    const answers = await Promise.all(Array.from({ length: 20 }, () => rawLogin(`burst-${randomUUID()}@test.example`, 'wrong-password')));
    const evaluated = answers.filter((a) => a.status !== 429);
    expect(evaluated.length).toBeLessThanOrEqual(5);
    for (const a of evaluated) expect(a.status).toBe(401);
  });
});
