// Keys narrower than their user (SPEC §2, API key): `permissions` at creation, the user's effective
// permissions ∩ the key's on every request, on REST, GraphQL and MCP, and in the escalation rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { insertActor, login, seedHuman, sessionClient } from '../../support/sessions.js';
import { mcpHttpClient } from '../../support/mcp.js';

let app: TestApp;
let admin: ReturnType<typeof client>;
let actorId: string;
beforeAll(async () => {
  app = await startTestApp();
  const res = await login(app, ADMIN.email, ADMIN.password);
  admin = sessionClient(app, res.token!);
  actorId = await insertActor(app, 'organization', 'Scoped Org');
});
afterAll(async () => {
  await app?.close();
});

const SENSE = `mutation($input: SenseTensionInput!) { senseTension(input: $input) { tension { id } } }`;
const READ = `query { tensions { data { id } } }`;

/** An agent holding tensions:read and tensions:write, and a key of it scoped to `permissions`. */
async function scopedAgent(permissions: string[]): Promise<{ agent: SeededUser; key: string; keyId: string; body: any }> {
  const agent = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read', 'tensions:write', 'actors:read'] });
  const res = await admin.post(`/users/${agent.userId}/api-keys`, { name: 'scoped', permissions });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { agent, key: res.body.key, keyId: res.body.id, body: res.body };
}

async function withMcp<T>(key: string, run: (c: Awaited<ReturnType<typeof mcpHttpClient>>) => Promise<T>): Promise<T> {
  const c = await mcpHttpClient(app, key);
  try {
    return await run(c);
  } finally {
    await c.close();
  }
}

describe('a key scoped to tensions:read', () => {
  it('is refused tensions:write on REST, GraphQL and MCP although its user holds it (the unscoped key is not)', async () => {
    const { agent, key, body } = await scopedAgent(['tensions:read']);
    expect(body).toMatchObject({ permissions: ['tensions:read'], rotatedFromId: null, key: expect.stringMatching(/^mk_/) });
    const scoped = client(app, key);
    const full = client(app, agent.key);

    expect((await scoped.get('/tensions')).status).toBe(200);
    const rest = await scoped.post('/tensions', { name: 'Nope', actorId });
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ code: 'forbidden', missingPermission: 'tensions:write' });
    expect((await full.post('/tensions', { name: 'Yes', actorId })).status).toBe(201);

    expect((await scoped.gql(READ)).body.data.tensions.data.length).toBe(1);
    const gql = await scoped.gql(SENSE, { input: { name: 'Nope', actorId } });
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', missingPermission: 'tensions:write' });
    expect((await full.gql(SENSE, { input: { name: 'Yes again', actorId } })).body.data.senseTension.tension.id).toBeTruthy();

    await withMcp(key, async (c) => {
      const names = (await c.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual(['get_tension', 'get_tension_changes', 'get_tension_history', 'list_tensions', 'whoami']);
      const refused = await c.callTool({ name: 'sense_tension', arguments: { name: 'Nope', actorId } });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ code: 'forbidden', missingPermission: 'tensions:write' });
      const who = await c.callTool({ name: 'whoami', arguments: {} });
      expect((who.structuredContent as { permissions: string[] }).permissions).toEqual(['tensions:read']);
    });
    await withMcp(agent.key, async (c) => {
      expect((await c.listTools()).tools.map((t) => t.name)).toContain('sense_tension');
    });
    // Nothing the scoped key tried was written.
    const [{ n }] = await app.em().execute(`select count(*)::int as n from tensions where name = 'Nope'`);
    expect(n).toBe(0);
  });

  it('shows the narrowed permissions in /auth/me and GraphQL me, and its scope in the key metadata', async () => {
    const { agent, key, keyId } = await scopedAgent(['tensions:read']);
    const me = await client(app, key).get('/auth/me');
    expect(me.body).toMatchObject({
      authenticatedBy: 'api_key',
      permissions: ['tensions:read'],
      apiKey: { id: keyId, permissions: ['tensions:read'], rotatedFromId: null },
    });
    expect((await client(app, agent.key).get('/auth/me')).body.permissions).toEqual(['tensions:read', 'tensions:write', 'actors:read']);
    expect((await client(app, key).gql('query { me { permissions } }')).body.data.me.permissions).toEqual(['tensions:read']);
    const listed = await admin.get(`/users/${agent.userId}/api-keys`);
    const byId = new Map(listed.body.data.map((k: any) => [k.id, k]));
    expect(byId.get(keyId)).toMatchObject({ permissions: ['tensions:read'] });
    expect(byId.get(agent.keyId)).toMatchObject({ permissions: null });
    const gqlList = await admin.gql(`query($id: ID!) { userApiKeys(userId: $id) { data { id permissions rotatedFromId } } }`, { id: agent.userId });
    expect(gqlList.body.data.userApiKeys.data).toContainEqual({ id: keyId, permissions: ['tensions:read'], rotatedFromId: null });
  });

  it('loses tensions:read the moment its user does, and never regains more than its list', async () => {
    const { agent, key } = await scopedAgent(['tensions:read']);
    const scoped = client(app, key);
    expect((await scoped.get('/tensions')).status).toBe(200);
    expect((await admin.patch(`/roles/${agent.roleId}`, { permissions: ['tensions:write', 'actors:read'] })).status).toBe(200);
    const refused = await scoped.get('/tensions');
    expect(refused.status).toBe(403);
    expect(refused.body.missingPermission).toBe('tensions:read');
    expect((await scoped.get('/auth/me')).body.permissions).toEqual([]);
    await withMcp(key, async (c) => {
      expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);
    });
    // The user gets everything back and more: the key is back to its list, no further.
    expect((await admin.patch(`/roles/${agent.roleId}`, { permissions: ['*'] })).status).toBe(200);
    expect((await scoped.get('/auth/me')).body.permissions).toEqual(['tensions:read']);
    expect((await scoped.get('/actors')).status).toBe(403);
  });
});

describe('creating a scoped key', () => {
  it('refuses an unknown permission or one the user does not hold (400 on permissions), on agent and self-service keys', async () => {
    const agent = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read'] });
    const unknown = await admin.post(`/users/${agent.userId}/api-keys`, { name: 'k', permissions: ['tensions:fly'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].path).toMatch(/^permissions/);
    const unheld = await admin.post(`/users/${agent.userId}/api-keys`, { name: 'k', permissions: ['tensions:read', 'users:read'] });
    expect(unheld.status).toBe(400);
    expect(unheld.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'permissions', code: 'not_held', params: { permissions: ['users:read'] } }],
    });
    // A wildcard the user does not hold whole is not held.
    expect((await admin.post(`/users/${agent.userId}/api-keys`, { name: 'k', permissions: ['tensions:*'] })).status).toBe(400);
    for (const permissions of ['tensions:read', [1], [null]]) {
      expect((await admin.post(`/users/${agent.userId}/api-keys`, { name: 'k', permissions })).status, JSON.stringify(permissions)).toBe(400);
    }
    // Nothing was minted by the refusals.
    expect((await admin.get(`/users/${agent.userId}/api-keys`)).body.data).toHaveLength(1);
    const gql = await admin.gql(`mutation($id: ID!, $input: CreateApiKeyInput!) { provisionApiKey(userId: $id, input: $input) { permissions key } }`, {
      id: agent.userId,
      input: { name: 'gql', permissions: ['users:write'] },
    });
    expect(gql.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');

    const human = await seedHuman(app, ['tensions:read', 'tensions:write']);
    const self = sessionClient(app, human.token);
    const selfUnheld = await self.post('/me/api-keys', { name: 'mine', permissions: ['users:write'] });
    expect(selfUnheld.status).toBe(400);
    expect(selfUnheld.body.errors[0]).toMatchObject({ path: 'permissions', code: 'not_held' });
    const mine = await self.post('/me/api-keys', { name: 'mine', permissions: ['tensions:read'] });
    expect(mine.status).toBe(201);
    expect(mine.body.permissions).toEqual(['tensions:read']);
    expect((await client(app, mine.body.key).post('/tensions', { name: 'Nope', actorId })).status).toBe(403);
    const mineGql = await self.gql(`mutation($input: CreateApiKeyInput!) { createMyApiKey(input: $input) { permissions } }`, {
      input: { name: 'mine too', permissions: ['tensions:read', 'tensions:write'] },
    });
    expect(mineGql.body.data.createMyApiKey.permissions).toEqual(['tensions:read', 'tensions:write']);
    // Without permissions the key carries all of the user's (null), as before.
    expect((await self.post('/me/api-keys', { name: 'all' })).body.permissions).toBeNull();
  });
});

describe('escalation', () => {
  it('reads the narrowed set: a scoped key of a `*` user cannot act on users or hand out what its list lacks', async () => {
    const boss = await seedHuman(app, ['*']);
    const bossSession = sessionClient(app, boss.token);
    const created = await bossSession.post('/me/api-keys', { name: 'user admin', permissions: ['users:read', 'users:write'] });
    expect(created.status).toBe(201);
    const scoped = client(app, created.body.key);
    const reader = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read'] });

    const denied = await scoped.patch(`/users/${reader.userId}`, { name: 'Renamed' });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'escalation_denied', missingPermissions: ['tensions:read'] });
    expect((await scoped.post(`/users/${reader.userId}/api-keys`, { name: 'x' })).body.code).toBe('escalation_denied');
    expect((await scoped.post('/users', { type: 'agent', email: 'scoped-made@test.example', name: 'X', roleIds: [reader.roleId] })).body.code).toBe(
      'escalation_denied',
    );
    const gql = await scoped.gql(`mutation($id: ID!) { updateUser(id: $id, input: { name: "Renamed" }) { id } }`, { id: reader.userId });
    expect(gql.body.errors[0].extensions.code).toBe('ESCALATION_DENIED');
    // The same user's password session holds `*` and may.
    expect((await bossSession.patch(`/users/${reader.userId}`, { name: 'Renamed' })).status).toBe(200);
    // A user holding only users:* is within the key's reach.
    const clerk = await seedUserWithKey(app, { type: 'agent', grants: ['users:read'] });
    expect((await scoped.patch(`/users/${clerk.userId}`, { name: 'Clerk' })).status).toBe(200);
  });
});
