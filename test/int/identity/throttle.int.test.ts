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

  it('a successful login resets the email\'s count', async () => {
    const h = await seedHuman(app, []);
    for (let i = 0; i < 9; i++) await login(app, h.email, `wrong-password-${i}`);
    expect((await login(app, h.email, PASSWORD)).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await login(app, h.email, `wrong-password-${i}`)).status).toBe(401);
    expect((await login(app, h.email, PASSWORD)).status).toBe(429);
  });

  it('100 failures from one client in the window block that client for every email', async () => {
    const h = await seedHuman(app, []);
    await login(app, `probe-${randomUUID()}@test.example`, 'wrong-password');
    const [{ client }] = await app.em().execute('select client from login_attempts order by attempted_at desc limit 1');
    const em = app.em();
    for (let i = 0; i < 99; i++) {
      await em.execute(`insert into login_attempts (id, email, client, attempted_at) values (?, ?, ?, now())`, [randomUUID(), `other-${i}@test.example`, client]);
    }
    const res = await login(app, h.email, PASSWORD);
    expect(res.status).toBe(429);
  });
});
