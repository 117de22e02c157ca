import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { seedHuman, sessionClient } from '../../support/sessions.js';
import { isWellFormedApiKey } from '../../../server/domain/api-key.js';

let now = Date.now();
let app: TestApp;
beforeAll(async () => {
  // A clock the test moves, to observe the once-a-minute lastUsedAt rule.
  app = await startTestApp({}, { clock: () => new Date(now) });
});
afterAll(async () => {
  await app?.close();
});

describe('API keys', () => {
  it('provisions agent keys in the SPEC format, returns the plaintext once and stores only its SHA-256', async () => {
    const admin = await seedUserWithKey(app, { grants: ['users:*'] });
    const agent = await seedUserWithKey(app, { type: 'agent', grants: [] });
    const res = await client(app, admin.key).post(`/users/${agent.userId}/api-keys`, { name: 'deploy' });
    expect(res.status).toBe(201);
    const { key, ...meta } = res.body;
    expect(key).toHaveLength(52);
    expect(key.startsWith('mk_')).toBe(true);
    expect(isWellFormedApiKey(key)).toBe(true);
    expect(Object.keys(meta).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'permissions', 'prefix', 'revokedAt', 'rotatedFromId']);
    const [row] = await app.em().execute('select * from api_keys where id = ?', [meta.id]);
    expect(JSON.stringify(row)).not.toContain(key);
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);

    // One changed character breaks the checksum: refused before any lookup.
    const last = key.at(-1) === 'a' ? 'b' : 'a';
    const broken = await client(app, key.slice(0, -1) + last).get('/auth/me');
    expect(broken.status).toBe(401);
    expect(broken.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('refuses expired, revoked and deactivated-user keys on the very next request', async () => {
    const admin = await seedUserWithKey(app, { grants: ['users:*'] });
    const expired = await seedUserWithKey(app, { grants: [] });
    // Expiry is judged by the service's clock (pinned here), not the database's.
    await app.em().execute('update api_keys set expires_at = ? where id = ?', [new Date(now - 1000), expired.keyId]);
    expect((await client(app, expired.key).get('/auth/me')).status).toBe(401);

    const revoked = await seedUserWithKey(app, { type: 'agent', grants: [] });
    expect((await client(app, revoked.key).get('/auth/me')).status).toBe(200);
    expect((await client(app, admin.key).del(`/users/${revoked.userId}/api-keys/${revoked.keyId}`)).status).toBe(204);
    expect((await client(app, revoked.key).get('/auth/me')).status).toBe(401);

    const leaving = await seedUserWithKey(app, { type: 'agent', grants: [] });
    expect((await client(app, leaving.key).get('/auth/me')).status).toBe(200);
    expect((await client(app, admin.key).del(`/users/${leaving.userId}`)).status).toBe(204);
    expect((await client(app, leaving.key).get('/auth/me')).status).toBe(401);
    const [key] = await app.em().execute('select revoked_at from api_keys where id = ?', [leaving.keyId]);
    expect(key.revoked_at).not.toBeNull();
  });

  it('sets lastUsedAt on first use and does not rewrite it within a minute', async () => {
    const agent = await seedUserWithKey(app, { grants: [] });
    const lastUsed = async () => (await app.em().execute('select last_used_at from api_keys where id = ?', [agent.keyId]))[0].last_used_at;
    expect(await lastUsed()).toBeNull();
    const t0 = now;
    await client(app, agent.key).get('/auth/me');
    await expect.poll(lastUsed).not.toBeNull();
    expect(new Date(await lastUsed()).getTime()).toBe(t0);
    now = t0 + 30_000;
    for (let i = 0; i < 3; i++) await client(app, agent.key).get('/auth/me');
    // The write is fire-and-forget: a wrong rewrite would land after the answer, so keep reading for a
    // while (the first write above landed within a few ms) before calling it absent.
    for (const deadline = Date.now() + 750; Date.now() < deadline; await new Promise((r) => setTimeout(r, 25))) {
      expect(new Date(await lastUsed()).getTime()).toBe(t0);
    }
    now = t0 + 61_000;
    await client(app, agent.key).get('/auth/me');
    await expect.poll(async () => new Date(await lastUsed()).getTime()).toBe(t0 + 61_000);
    now = Date.now();
  });

  it('checks targets and expiry: not an agent → 422, past expiresAt → 400, a key of another user → 404', async () => {
    const admin = await seedUserWithKey(app, { grants: ['users:*'] });
    const a = client(app, admin.key);
    const human = await seedUserWithKey(app, { type: 'human', grants: [] });
    const agent = await seedUserWithKey(app, { type: 'agent', grants: [] });
    const other = await seedUserWithKey(app, { type: 'agent', grants: [] });
    expect((await a.post(`/users/${human.userId}/api-keys`, { name: 'x' })).body.code).toBe('not_an_agent');
    const past = await a.post(`/users/${agent.userId}/api-keys`, { name: 'x', expiresAt: new Date(now - 1000).toISOString() });
    expect(past.status).toBe(400);
    expect(past.body.errors[0].path).toBe('expiresAt');
    const future = await a.post(`/users/${agent.userId}/api-keys`, { name: 'x', expiresAt: new Date(now + 3600_000).toISOString() });
    expect(future.status).toBe(201);
    expect(future.body.expiresAt).toBe(new Date(now + 3600_000).toISOString());
    expect((await a.del(`/users/${agent.userId}/api-keys/${other.keyId}`)).status).toBe(404);
    expect((await client(app, other.key).get('/auth/me')).status).toBe(200);
    expect((await a.del(`/users/${agent.userId}/api-keys/not-a-uuid`)).status).toBe(404);
    // no GET on one key: a wrong method on a known path is 405 (SPEC §5), whatever the id
    expect((await a.get(`/users/${agent.userId}/api-keys/not-a-uuid`)).status).toBe(405);
  });

  it('self-service keys need a human password session (session_required with a key or as an agent)', async () => {
    const human = await seedHuman(app, ['users:read']);
    const s = sessionClient(app, human.token);
    const past = await s.post('/me/api-keys', { name: 'stale', expiresAt: new Date(now - 1000).toISOString() });
    expect([past.status, past.body.code, past.body.errors?.[0]?.path]).toEqual([400, 'validation_failed', 'expiresAt']);
    const created = await s.post('/me/api-keys', { name: 'laptop' });
    expect(created.status).toBe(201);
    expect(isWellFormedApiKey(created.body.key)).toBe(true);
    // The key carries exactly the user's permissions, and cannot mint keys.
    const byKey = client(app, created.body.key);
    const me = await byKey.get('/auth/me');
    expect(me.body).toMatchObject({ authenticatedBy: 'api_key', permissions: ['users:read'] });
    for (const res of [await byKey.get('/me/api-keys'), await byKey.post('/me/api-keys', { name: 'x' }), await byKey.del(`/me/api-keys/${created.body.id}`)]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('session_required');
    }
    const agent = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    expect((await client(app, agent.key).post('/me/api-keys', { name: 'x' })).body.code).toBe('session_required');
    const gql = await client(app, agent.key).gql('mutation { createMyApiKey(input: {name: "x"}) { key } }');
    expect(gql.body.errors[0].extensions.code).toBe('SESSION_REQUIRED');

    const list = await s.get('/me/api-keys');
    expect(list.body.data.map((k: any) => k.name)).toEqual(['laptop']);
    expect(list.body.data[0].key).toBeUndefined();
    const stranger = await seedUserWithKey(app, { type: 'human', grants: [] });
    expect((await s.del(`/me/api-keys/${stranger.keyId}`)).status).toBe(404);
    expect((await s.del(`/me/api-keys/${created.body.id}`)).status).toBe(204);
    expect((await byKey.get('/auth/me')).status).toBe(401);
  });
});
