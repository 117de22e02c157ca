// Issue 17: the self-service password change was not throttled, so a stolen session could guess the current
// password without limit. A wrong current password now counts like a failed sign-in for the user's email.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { PASSWORD, seedHuman, sessionClient } from '../../support/sessions.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

const change = (currentPassword: string, newPassword = 'a-new-password-for-me-1') => ({ currentPassword, newPassword });
const hashOf = async (userId: string) => (await app.em().execute('select password_hash from users where id = ?', [userId]))[0].password_hash;

describe('POST /me/password and GraphQL changePassword are throttled like login (SPEC §6)', () => {
  it('after 10 wrong current passwords the 11th attempt is 429 with Retry-After, even with the right one', async () => {
    const h = await seedHuman(app, []);
    const me = sessionClient(app, h.token);
    const before = await hashOf(h.userId);
    for (let i = 0; i < 10; i++) {
      const res = await me.post('/me/password', change(`wrong-password-${i}`));
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('currentPassword');
    }
    const res = await me.post('/me/password', change(PASSWORD));
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('rate_limited');
    const retry = Number(res.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(15 * 60);
    const gql = await me.gql('mutation($input: ChangePasswordInput!) { changePassword(input: $input) }', { input: change(PASSWORD) });
    expect(gql.body.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    expect(await hashOf(h.userId)).toBe(before);
  });

  it('a burst of 20 simultaneous guesses: at most 10 are evaluated', async () => {
    const h = await seedHuman(app, []);
    const me = sessionClient(app, h.token);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => me.post('/me/password', change(`wrong-password-${i}`))));
    const evaluated = answers.filter((a) => a.status !== 429);
    expect(evaluated.length).toBeLessThanOrEqual(10);
    for (const a of evaluated) expect(a.status).toBe(400);
  });

  it('a successful change resets the count', async () => {
    const h = await seedHuman(app, []);
    const me = sessionClient(app, h.token);
    for (let i = 0; i < 9; i++) expect((await me.post('/me/password', change(`wrong-password-${i}`))).status).toBe(400);
    expect((await me.post('/me/password', change(PASSWORD, 'the-second-password-1'))).status).toBe(204);
    for (let i = 0; i < 10; i++) expect((await me.post('/me/password', change(`wrong-password-${i}`))).status).toBe(400);
    expect((await me.post('/me/password', change('the-second-password-1'))).status).toBe(429);
  });
});
