import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { login, PASSWORD, seedHuman, sessionClient } from '../../support/sessions.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

const LOGIN_ME = 'mutation($i: LoginInput!) { login(input: $i) { user { email } authenticatedBy permissions } }';

describe('login', () => {
  it('sets an HttpOnly, SameSite=Strict, Path=/ session cookie with the configured Max-Age and answers the user', async () => {
    const res = await login(app, ADMIN.email.toUpperCase(), ADMIN.password);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: ADMIN.email, type: 'human', status: 'active' });
    expect(JSON.stringify(res.body)).not.toMatch(/password|hash/i);
    const cookie = res.setCookie!;
    expect(cookie).toMatch(/^session=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toContain(`Max-Age=${app.deps.config.sessionTtlMs / 1000}`);
    expect(cookie).not.toMatch(/Secure/i); // plain HTTP outside production
    const [row] = await app.em().execute('select count(*)::int as n from sessions where revoked_at is null');
    expect(row.n).toBeGreaterThan(0);
    // Roles are never in the token: only the user and the server-side session id.
    expect(Object.keys(jwt.decode(res.token!) as object).sort()).toEqual(['exp', 'iat', 'sid', 'sub']);
  });

  it('answers one 401 invalid_credentials for wrong password, unknown email, agent and deactivated users', async () => {
    const agent = await seedUserWithKey(app, { type: 'agent', grants: [] });
    const gone = await seedHuman(app, []);
    const admin = sessionClient(app, (await login(app, ADMIN.email, ADMIN.password)).token!);
    expect((await admin.del(`/users/${gone.userId}`)).status).toBe(204);
    const answers = await Promise.all([
      login(app, ADMIN.email, 'wrong-password-123'),
      login(app, 'nobody@test.example', ADMIN.password),
      login(app, agent.email, PASSWORD),
      login(app, gone.email, PASSWORD),
    ]);
    for (const a of answers) {
      expect(a.status).toBe(401);
      expect(a.body.code).toBe('invalid_credentials');
      expect(a.body.detail).toBe(answers[0].body.detail);
      expect(a.setCookie).toBeNull();
    }
  });

  it('sets Secure in production', async () => {
    const prod = await startTestApp({ env: 'production' });
    try {
      const res = await login(prod, ADMIN.email, ADMIN.password);
      expect(res.setCookie).toMatch(/Secure/i);
    } finally {
      await prod.close();
    }
  });

  it('is a GraphQL mutation that sets the same cookie, without a CSRF header', async () => {
    const res = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: LOGIN_ME, variables: { i: { email: ADMIN.email, password: ADMIN.password } } }),
    });
    const body = await res.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.login).toMatchObject({ user: { email: ADMIN.email }, authenticatedBy: 'session' });
    expect(body.data.login.permissions).toContain('roles:write');
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^session=.*HttpOnly.*SameSite=Strict/i);
    const token = /session=([^;]*)/.exec(cookie)![1];
    expect((await sessionClient(app, token).get('/auth/me')).body.authenticatedBy).toBe('session');

    const bad = await client(app).gql(LOGIN_ME, { i: { email: ADMIN.email, password: 'nope-nope-nope' } });
    expect(bad.body.errors[0].extensions.code).toBe('INVALID_CREDENTIALS');
  });
});

describe('session tokens', () => {
  it('refuses a token signed with another algorithm or another secret, and a forged one naming an agent', async () => {
    const human = await seedHuman(app, ['users:read']);
    const claims = jwt.decode(human.token) as { sub: string; sid: string };
    const secret = app.deps.sessionSecret;
    const hs512 = jwt.sign({ sid: claims.sid }, secret, { algorithm: 'HS512', subject: claims.sub, expiresIn: 600 });
    const otherSecret = jwt.sign({ sid: claims.sid }, 'another-secret-that-is-long-enough-000000', { algorithm: 'HS256', subject: claims.sub, expiresIn: 600 });
    const none = jwt.sign({ sid: claims.sid, sub: claims.sub }, '', { algorithm: 'none' });
    const garbage = jwt.sign({ sid: 'not-a-uuid' }, secret, { algorithm: 'HS256', subject: 'x', expiresIn: 600 });
    expect((await sessionClient(app, human.token).get('/auth/me')).status).toBe(200);
    for (const token of [hs512, otherSecret, none, garbage]) {
      const res = await sessionClient(app, token).get('/auth/me');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthenticated');
    }

    // An agent with a server-side session row and a validly signed token is still refused.
    const agent = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    const sid = randomUUID();
    // By SQL: no path of the API gives an agent a session row, which is the state under test.
    await app.em().execute(`insert into sessions (id, user_id, created_at, expires_at) values (?, ?, now(), now() + interval '1 hour')`, [sid, agent.userId]);
    const agentToken = jwt.sign({ sid }, secret, { algorithm: 'HS256', subject: agent.userId, expiresIn: 600 });
    const res = await sessionClient(app, agentToken).get('/auth/me');
    expect(res.status).toBe(401);
    expect((await sessionClient(app, agentToken).gql('{ me { permissions } }')).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('logout revokes the session server-side and clears the cookie; the old cookie is refused afterwards', async () => {
    const human = await seedHuman(app, []);
    const s = sessionClient(app, human.token);
    const out = await s.post('/auth/logout');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^session=;.*Expires=Thu, 01 Jan 1970/i);
    expect((await s.get('/auth/me')).status).toBe(401);
    const [row] = await app.em().execute('select revoked_at from sessions where user_id = ?', [human.userId]);
    expect(row.revoked_at).not.toBeNull();
  });

  it('logout on GraphQL revokes too; a key cannot log out (session_required)', async () => {
    const human = await seedHuman(app, []);
    const res = await sessionClient(app, human.token).gql('mutation { logout }');
    expect(res.body.data.logout).toBe(true);
    expect((await sessionClient(app, human.token).get('/auth/me')).status).toBe(401);
    const agent = await seedUserWithKey(app, { grants: [] });
    const byKey = await client(app, agent.key).post('/auth/logout');
    expect(byKey.status).toBe(403);
    expect(byKey.body.code).toBe('session_required');
  });

  it('password change verifies the current password, revokes the OTHER sessions and keeps this one', async () => {
    const human = await seedHuman(app, []);
    const other = await login(app, human.email, PASSWORD);
    const s = sessionClient(app, human.token);
    const wrong = await s.post('/me/password', { currentPassword: 'not-the-password', newPassword: 'a-brand-new-password' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].path).toBe('currentPassword');
    const short = await s.post('/me/password', { currentPassword: PASSWORD, newPassword: 'short' });
    expect(short.status).toBe(400);
    expect((await s.post('/me/password', { currentPassword: PASSWORD, newPassword: 'a-brand-new-password' })).status).toBe(204);
    expect((await s.get('/auth/me')).status).toBe(200);
    expect((await sessionClient(app, other.token!).get('/auth/me')).status).toBe(401);
    expect((await login(app, human.email, PASSWORD)).status).toBe(401);
    expect((await login(app, human.email, 'a-brand-new-password')).status).toBe(200);
    // GraphQL face of the same use case
    const g = await s.gql('mutation($i: ChangePasswordInput!) { changePassword(input: $i) }', {
      i: { currentPassword: 'a-brand-new-password', newPassword: 'yet-another-password' },
    });
    expect(g.body.data.changePassword).toBe(true);
    const agent = await seedUserWithKey(app, { type: 'human', grants: ['*'] });
    const byKey = await client(app, agent.key).post('/me/password', { currentPassword: 'x', newPassword: 'yet-another-password' });
    expect(byKey.body.code).toBe('session_required');
  });

  it("admin password reset (POST /users/:id/password) revokes all that user's sessions", async () => {
    const human = await seedHuman(app, []);
    const admin = sessionClient(app, (await login(app, ADMIN.email, ADMIN.password)).token!);
    expect((await admin.post(`/users/${human.userId}/password`, { password: 'reset-by-the-admin' })).status).toBe(204);
    expect((await sessionClient(app, human.token).get('/auth/me')).status).toBe(401);
    expect((await login(app, human.email, 'reset-by-the-admin')).status).toBe(200);
    const agent = await seedUserWithKey(app, { grants: [] });
    expect((await admin.post(`/users/${agent.userId}/password`, { password: 'reset-by-the-admin' })).body.code).toBe('not_applicable');
  });
});

describe('CSRF (SPEC §6)', () => {
  it('refuses a cookie-authenticated unsafe request without X-CSRF-Protection on REST and GraphQL; bearer is exempt', async () => {
    const human = await seedHuman(app, ['roles:write', 'roles:read']);
    const noHeader = sessionClient(app, human.token, { csrf: false });
    const rest = await noHeader.post('/roles', { code: 'csrf-role', name: 'CSRF', permissions: [] });
    expect(rest.status).toBe(403);
    expect(rest.body.code).toBe('csrf_required');
    expect((await noHeader.get('/roles')).status).toBe(200); // safe method
    const gql = await noHeader.gql('mutation { deleteRole(id: "00000000-0000-4000-8000-000000000000") }');
    expect(gql.status).toBe(403);
    expect(gql.body.errors[0].extensions.code).toBe('CSRF_REQUIRED');
    expect((await sessionClient(app, human.token).post('/roles', { code: 'csrf-role', name: 'CSRF', permissions: [] })).status).toBe(201);

    const agent = await seedUserWithKey(app, { grants: ['roles:write'] });
    expect((await client(app, agent.key).post('/roles', { code: 'bearer-role', name: 'Bearer', permissions: [] })).status).toBe(201);
    const g = await client(app, agent.key).gql('mutation { createRole(input: {code: "bearer-gql", name: "B", permissions: []}) { code } }');
    expect(g.body.data.createRole.code).toBe('bearer-gql');
  });
});
