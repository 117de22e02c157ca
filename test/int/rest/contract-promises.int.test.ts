// Promises of the first-release contract that no other test exercised: the union of several roles,
// password length bounds, users emitting no events, expired sessions, /healthz, GraphQL over GET and
// the default page size of every list.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { login, PASSWORD, seedHuman, sessionClient } from '../../support/sessions.js';
import { newActor, newTension } from '../../support/tensions.js';

let app: TestApp;
let admin: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp();
  admin = client(app, (await seedUserWithKey(app, { grants: ['*'] })).key);
});
afterAll(async () => {
  await app?.close();
});

const eventCount = async () => (await app.em().execute('select count(*)::int as n from domain_events'))[0].n as number;

describe('roles', () => {
  it('a user holding several roles has the union of their permissions, and nothing more', async () => {
    const reader = await admin.post('/roles', { code: 'union-tensions', name: 'Union tensions', permissions: ['tensions:read'] });
    const actors = await admin.post('/roles', { code: 'union-actors', name: 'Union actors', permissions: ['actors:read', 'actors:write'] });
    const agent = await admin.post('/users', { type: 'agent', email: 'union@test.example', name: 'Union agent' });
    expect([reader.status, actors.status, agent.status]).toEqual([201, 201, 201]);
    const roles = await admin.put(`/users/${agent.body.id}/roles`, { roleIds: [reader.body.id, actors.body.id] });
    expect(roles.status).toBe(200);
    const key = await admin.post(`/users/${agent.body.id}/api-keys`, { name: 'union' });
    const asAgent = client(app, key.body.key);
    const me = await asAgent.get('/auth/me');
    expect([...me.body.permissions].sort()).toEqual(['actors:read', 'actors:write', 'tensions:read']);
    expect((await asAgent.get('/tensions')).status).toBe(200);
    expect((await asAgent.post('/actors', { name: 'Union Org', type: 'organization' })).status).toBe(201);
    expect((await asAgent.get('/users')).body).toMatchObject({ code: 'forbidden', missingPermission: 'users:read' });
  });
});

describe('passwords (12–256 characters)', () => {
  it.each([
    [11, 400],
    [12, 201],
    [256, 201],
    [257, 400],
  ])('a human created with a %i-character password → %i', async (length, status) => {
    const res = await admin.post('/users', { email: `pw-${length}@test.example`, name: `Password ${length}`, password: 'p'.repeat(length) });
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['password']);
    else expect((await login(app, `pw-${length}@test.example`, 'p'.repeat(length))).status).toBe(200);
  });

  it.each([11, 257])('a %i-character password is refused on reset and on change', async (length) => {
    const human = await seedHuman(app, []);
    const reset = await admin.post(`/users/${human.userId}/password`, { password: 'p'.repeat(length) });
    expect([reset.status, reset.body.code]).toEqual([400, 'validation_failed']);
    const change = await sessionClient(app, human.token).post('/me/password', { currentPassword: PASSWORD, newPassword: 'p'.repeat(length) });
    expect([change.status, change.body.code]).toEqual([400, 'validation_failed']);
  });
});

describe('users emit no events', () => {
  it('creating, editing, deactivating users, roles and keys, signing in and out add no row to domain_events', async () => {
    const done = async (call: Promise<{ status: number; body: any }>) => {
      const res = await call;
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return res.body;
    };
    const before = await eventCount();
    const role = await done(admin.post('/roles', { code: 'quiet', name: 'Quiet', permissions: ['tensions:read'] }));
    await done(admin.patch(`/roles/${role.id}`, { name: 'Quieter' }));
    const human = await done(admin.post('/users', { email: 'quiet@test.example', name: 'Quiet', password: PASSWORD, roleIds: [role.id] }));
    const agent = await done(admin.post('/users', { type: 'agent', email: 'quiet-bot@test.example', name: 'Quiet bot' }));
    await done(admin.patch(`/users/${human.id}`, { name: 'Quiet human' }));
    await done(admin.put(`/users/${agent.id}/roles`, { roleIds: [role.id] }));
    await done(admin.post(`/users/${human.id}/password`, { password: `${PASSWORD}-2` }));
    const key = await done(admin.post(`/users/${agent.id}/api-keys`, { name: 'quiet' }));
    await done(admin.del(`/users/${agent.id}/api-keys/${key.id}`));
    const session = await login(app, 'quiet@test.example', `${PASSWORD}-2`);
    expect(session.status).toBe(200);
    const s = sessionClient(app, session.token!);
    const mine = await done(s.post('/me/api-keys', { name: 'mine' }));
    await done(s.del(`/me/api-keys/${mine.id}`));
    await done(s.post('/me/password', { currentPassword: `${PASSWORD}-2`, newPassword: `${PASSWORD}-3` }));
    const again = await login(app, 'quiet@test.example', `${PASSWORD}-3`);
    await done(sessionClient(app, again.token!).post('/auth/logout'));
    await done(admin.put(`/users/${agent.id}/roles`, { roleIds: [] }));
    await done(admin.del(`/users/${agent.id}`));
    await done(admin.put(`/users/${human.id}/roles`, { roleIds: [] }));
    await done(admin.del(`/roles/${role.id}`));
    expect(await eventCount()).toBe(before);
  });
});

describe('sessions', () => {
  it('an expired session is refused (401) on REST and GraphQL', async () => {
    const human = await seedHuman(app, ['tensions:read']);
    const s = sessionClient(app, human.token);
    expect((await s.get('/auth/me')).status).toBe(200);
    // Direct SQL: the API cannot age a session, and waiting out SESSION_TTL_HOURS is not a test.
    await app.em().execute(`update sessions set expires_at = now() - interval '1 second' where user_id = ?`, [human.userId]);
    const me = await s.get('/auth/me');
    expect([me.status, me.body.code]).toEqual([401, 'unauthenticated']);
    const gql = await s.gql('{ me { authenticatedBy } }');
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('outside /api/v1', () => {
  it('/healthz answers {status, version} with the package version, without authentication', async () => {
    const { version } = JSON.parse(await readFile('package.json', 'utf8'));
    const res = await fetch(`${app.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', version });
  });

  it('GET /graphql runs a query; a mutation over GET is refused and changes nothing', async () => {
    const key = (await seedUserWithKey(app, { grants: ['actors:*'] })).key;
    const get = (query: string) =>
      fetch(`${app.url}/graphql?query=${encodeURIComponent(query)}`, { headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
    const query = await get('{ health actors { data { id } } }');
    expect(query.status).toBe(200);
    expect(await query.json()).toMatchObject({ data: { health: 'ok', actors: { data: expect.any(Array) } } });
    const [{ n: before }] = await app.em().execute('select count(*)::int as n from actors');
    const mutation = await get('mutation { createActor(input: { name: "Over GET", type: organization }) { id } }');
    expect(mutation.status).toBe(405);
    expect((await mutation.json()).data ?? null).toBeNull();
    const [{ n: after }] = await app.em().execute('select count(*)::int as n from actors');
    expect(after).toBe(before);
  });
});

describe('default page size', () => {
  const DEFAULT = 20;

  it(`every list answers ${DEFAULT} items and a cursor when more exist (REST and GraphQL)`, async () => {
    const actor = await newActor(admin, 'Paged Org');
    const tension = await newTension(admin, { name: 'Paged', actorId: actor });
    const agent = await admin.post('/users', { type: 'agent', email: 'paged@test.example', name: 'Paged agent' });
    const human = await seedHuman(app, []);
    const me = sessionClient(app, human.token);
    for (let i = 0; i <= DEFAULT; i++) {
      await newActor(admin, `Paged Org ${i}`);
      await newTension(admin, { name: `Paged ${i}`, actorId: actor });
      await admin.post(`/tensions/${tension.id}/rescore`, { score: 1 + (i % 10) });
      await admin.post('/users', { type: 'agent', email: `paged-${i}@test.example`, name: `Paged ${i}` });
      await admin.post('/roles', { code: `paged-${i}`, name: `Paged ${i}`, permissions: [] });
      await admin.post(`/users/${agent.body.id}/api-keys`, { name: `paged ${i}` });
      await me.post('/me/api-keys', { name: `paged ${i}` });
    }
    const lists: [string, ReturnType<typeof client>, string, string][] = [
      ['/tensions', admin, 'tensions', 'tensions { data { id } nextCursor }'],
      ['/actors', admin, 'actors', 'actors { data { id } nextCursor }'],
      ['/users', admin, 'users', 'users { data { id } nextCursor }'],
      ['/roles', admin, 'roles', 'roles { data { id } nextCursor }'],
      [`/users/${agent.body.id}/api-keys`, admin, 'userApiKeys', `userApiKeys(userId: "${agent.body.id}") { data { id } nextCursor }`],
      ['/me/api-keys', me, 'myApiKeys', 'myApiKeys { data { id } nextCursor }'],
      [`/tensions/${tension.id}/history`, admin, 'tensionHistory', `tensionHistory(id: "${tension.id}") { data { version } nextCursor }`],
    ];
    for (const [path, as, field, selection] of lists) {
      const rest = await as.get(path);
      expect(rest.status, path).toBe(200);
      expect(rest.body.data, path).toHaveLength(DEFAULT);
      expect(rest.body.nextCursor, path).toEqual(expect.any(String));
      const gql = await as.gql(`{ ${selection} }`);
      expect(gql.body.errors, field).toBeUndefined();
      expect(gql.body.data[field].data, field).toHaveLength(DEFAULT);
      expect(gql.body.data[field].nextCursor, field).toEqual(expect.any(String));
    }
  }, 60_000);
});
