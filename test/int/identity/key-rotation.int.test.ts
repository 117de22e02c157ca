// Rotation with overlap (SPEC §2, API key): a new key copying name, permissions and expiry, naming the old
// one; the old key works until the overlap ends (at once for 0). The service's clock is pinned and moved
// by the test, so "after the overlap" is a clock step, not a wait.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { login, seedHuman, sessionClient } from '../../support/sessions.js';

let app: TestApp;
// Pinned at the real time the file starts (sessions and their tokens are checked against real time too).
let now = new Date();
let admin: ReturnType<typeof client>;
beforeAll(async () => {
  app = await startTestApp({}, { clock: () => now });
  admin = sessionClient(app, (await login(app, ADMIN.email, ADMIN.password)).token!);
});
afterAll(async () => {
  await app?.close();
});

const advance = (seconds: number) => {
  now = new Date(now.getTime() + seconds * 1000);
};
const works = async (key: string) => (await client(app, key).get('/auth/me')).status;

async function agentWithScopedKey(): Promise<{ agent: SeededUser; key: any }> {
  const agent = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read', 'actors:read'] });
  const expiresAt = new Date(now.getTime() + 30 * 86_400_000).toISOString();
  const res = await admin.post(`/users/${agent.userId}/api-keys`, { name: 'deploy bot', permissions: ['tensions:read'], expiresAt });
  expect(res.status).toBe(201);
  return { agent, key: res.body };
}

describe('rotating an agent key (users:write)', () => {
  it('answers 201 with a new key copying name, permissions and expiry; both work during the overlap, only the new one after', async () => {
    const { agent, key: old } = await agentWithScopedKey();
    const res = await admin.post(`/users/${agent.userId}/api-keys/${old.id}/rotate`, { overlapSeconds: 3600 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'deploy bot',
      permissions: ['tensions:read'],
      expiresAt: old.expiresAt,
      rotatedFromId: old.id,
      revokedAt: null,
      key: expect.stringMatching(/^mk_/),
    });
    expect(res.body.id).not.toBe(old.id);
    expect(res.body.key).not.toBe(old.key);
    const listed = new Map((await admin.get(`/users/${agent.userId}/api-keys`)).body.data.map((k: any) => [k.id, k]));
    expect(listed.get(old.id)).toMatchObject({ expiresAt: new Date(now.getTime() + 3600_000).toISOString(), revokedAt: null });
    const listing = JSON.stringify([...listed.values()]);
    expect(listing).not.toContain(old.key);
    expect(listing).not.toContain(res.body.key);

    expect(await works(old.key)).toBe(200);
    expect(await works(res.body.key)).toBe(200);
    // The new key carries the old one's scope.
    expect((await client(app, res.body.key).get('/auth/me')).body.permissions).toEqual(['tensions:read']);
    advance(3599);
    expect(await works(old.key)).toBe(200);
    advance(1);
    expect(await works(old.key)).toBe(401);
    expect(await works(res.body.key)).toBe(200);
    // The old key has expired now: rotating it again is not applicable.
    const again = await admin.post(`/users/${agent.userId}/api-keys/${old.id}/rotate`, {});
    expect(again.status).toBe(422);
    expect(again.body.code).toBe('not_applicable');
  });

  it('with no overlap (the default, also for an empty body or none) stops the old key at once', async () => {
    for (const body of [{ overlapSeconds: 0 }, {}, undefined]) {
      const { agent, key: old } = await agentWithScopedKey();
      const res = await admin.post(`/users/${agent.userId}/api-keys/${old.id}/rotate`, body);
      expect(res.status, JSON.stringify(body)).toBe(201);
      expect(await works(old.key)).toBe(401);
      expect(await works(res.body.key)).toBe(200);
    }
  });

  it('keeps an earlier expiry of the old key when the overlap would outlast it', async () => {
    const agent = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read'] });
    const soon = new Date(now.getTime() + 600_000).toISOString();
    const old = (await admin.post(`/users/${agent.userId}/api-keys`, { name: 'short', expiresAt: soon })).body;
    const res = await admin.post(`/users/${agent.userId}/api-keys/${old.id}/rotate`, { overlapSeconds: 86_400 });
    expect(res.body).toMatchObject({ expiresAt: soon, permissions: null });
    const listed = (await admin.get(`/users/${agent.userId}/api-keys`)).body.data;
    expect(listed.find((k: any) => k.id === old.id).expiresAt).toBe(soon);
  });

  it('refuses a revoked or expired key (422), a key of another user or none (404), a bad overlap (400)', async () => {
    const { agent, key } = await agentWithScopedKey();
    const other = await seedUserWithKey(app, { type: 'agent', grants: [] });
    const rotate = (userId: string, keyId: string, body: unknown = {}) => admin.post(`/users/${userId}/api-keys/${keyId}/rotate`, body);
    for (const overlapSeconds of [-1, 604_801, 1.5, '60']) {
      const res = await rotate(agent.userId, key.id, { overlapSeconds });
      expect(res.status, JSON.stringify(overlapSeconds)).toBe(400);
      expect(res.body.errors[0].path).toBe('overlapSeconds');
    }
    expect((await rotate(agent.userId, key.id, { overlapSeconds: 60, extra: 1 })).status).toBe(400);
    expect((await rotate(other.userId, key.id)).body.code).toBe('not_found');
    expect((await rotate(agent.userId, 'not-a-uuid')).status).toBe(404);
    expect((await rotate('7d3f1c52-5b1e-4c6a-9d0e-2f4b8a6c1e90', key.id)).body.code).toBe('user_not_found');
    expect((await admin.del(`/users/${agent.userId}/api-keys/${key.id}`)).status).toBe(204);
    const revoked = await rotate(agent.userId, key.id);
    expect(revoked.status).toBe(422);
    expect(revoked.body.code).toBe('not_applicable');
    // Nothing was minted by any refusal: the seeded key and the revoked one.
    expect((await admin.get(`/users/${agent.userId}/api-keys`)).body.data).toHaveLength(2);
    // The overlap bound is accepted.
    const fresh = (await admin.post(`/users/${agent.userId}/api-keys`, { name: 'max' })).body;
    expect((await rotate(agent.userId, fresh.id, { overlapSeconds: 604_800 })).status).toBe(201);
  });

  it('follows the escalation rule and needs users:write', async () => {
    const strong = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    const writer = await seedUserWithKey(app, { type: 'agent', grants: ['users:read', 'users:write'] });
    const denied = await client(app, writer.key).post(`/users/${strong.userId}/api-keys/${strong.keyId}/rotate`, {});
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('escalation_denied');
    expect(await works(strong.key)).toBe(200);
    const reader = await seedUserWithKey(app, { type: 'agent', grants: ['users:read'] });
    const forbidden = await client(app, reader.key).post(`/users/${writer.userId}/api-keys/${writer.keyId}/rotate`, {});
    expect(forbidden.body).toMatchObject({ code: 'forbidden', missingPermission: 'users:write' });
  });

  it('over GraphQL: rotateUserApiKey returns the CreatedApiKey', async () => {
    const { agent, key: old } = await agentWithScopedKey();
    const res = await admin.gql(
      `mutation($u: ID!, $k: ID!, $input: RotateApiKeyInput) { rotateUserApiKey(userId: $u, keyId: $k, input: $input) { id key name permissions rotatedFromId } }`,
      { u: agent.userId, k: old.id, input: { overlapSeconds: 120 } },
    );
    expect(res.body.data.rotateUserApiKey).toMatchObject({
      name: 'deploy bot',
      permissions: ['tensions:read'],
      rotatedFromId: old.id,
      key: expect.stringMatching(/^mk_/),
    });
    expect(await works(old.key)).toBe(200);
    advance(120);
    expect(await works(old.key)).toBe(401);
    expect(await works(res.body.data.rotateUserApiKey.key)).toBe(200);
    const withoutInput = await admin.gql(`mutation($u: ID!, $k: ID!) { rotateUserApiKey(userId: $u, keyId: $k) { id } }`, {
      u: agent.userId,
      k: res.body.data.rotateUserApiKey.id,
    });
    expect(withoutInput.body.data.rotateUserApiKey.id).toBeTruthy();
    const expired = await admin.gql(`mutation($u: ID!, $k: ID!) { rotateUserApiKey(userId: $u, keyId: $k) { id } }`, { u: agent.userId, k: old.id });
    expect(expired.body.errors[0].extensions.code).toBe('NOT_APPLICABLE');
  });
});

describe('rotating my own key (password session)', () => {
  it('works from a session on REST and GraphQL, never with a key, and only on my keys', async () => {
    const human = await seedHuman(app, ['tensions:read']);
    const me = sessionClient(app, human.token);
    const mine = (await me.post('/me/api-keys', { name: 'laptop', permissions: ['tensions:read'] })).body;
    const rotated = await me.post(`/me/api-keys/${mine.id}/rotate`, { overlapSeconds: 0 });
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ name: 'laptop', permissions: ['tensions:read'], rotatedFromId: mine.id });
    expect(await works(mine.key)).toBe(401);
    expect(await works(rotated.body.key)).toBe(200);

    const withKey = await client(app, rotated.body.key).post(`/me/api-keys/${rotated.body.id}/rotate`, {});
    expect(withKey.status).toBe(403);
    expect(withKey.body.code).toBe('session_required');
    const someoneElse = await seedUserWithKey(app, { type: 'human', grants: [] });
    expect((await me.post(`/me/api-keys/${someoneElse.keyId}/rotate`, {})).status).toBe(404);
    expect(await works(someoneElse.key)).toBe(200);

    const gql = await me.gql(`mutation($k: ID!, $input: RotateApiKeyInput) { rotateMyApiKey(keyId: $k, input: $input) { key rotatedFromId } }`, {
      k: rotated.body.id,
      input: { overlapSeconds: 30 },
    });
    expect(gql.body.data.rotateMyApiKey.rotatedFromId).toBe(rotated.body.id);
    expect(await works(rotated.body.key)).toBe(200);
    advance(30);
    expect(await works(rotated.body.key)).toBe(401);
    expect(await works(gql.body.data.rotateMyApiKey.key)).toBe(200);
  });
});

// Issue 30, item 4: rotating a key again during its overlap minted a key whose expiry was the overlap's end
// (it died seconds later). A rotation copies the key's OWN expiry; the overlap only ends the old key sooner.
describe('rotating again during an overlap', () => {
  it('the old key rotated again mints keys with its original expiry; its own end only ever comes sooner', async () => {
    const { agent, key: a } = await agentWithScopedKey();
    const original = a.expiresAt as string;
    const rotate = (id: string, overlapSeconds: number) => admin.post(`/users/${agent.userId}/api-keys/${id}/rotate`, { overlapSeconds });
    const b = await rotate(a.id, 3600);
    expect(b.body.expiresAt).toBe(original);
    advance(10);
    // A is in its overlap: not revoked, not expired, so it may be rotated again (SPEC §2 refuses only those).
    const c = await rotate(a.id, 3);
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ expiresAt: original, rotatedFromId: a.id, permissions: ['tensions:read'] });
    // A longer overlap on a third rotation does not lengthen A's life: it ends at the sooner end (now + 3 s).
    const d = await rotate(a.id, 86_400);
    expect(d.body.expiresAt).toBe(original);
    const aEnds = new Date(now.getTime() + 3000).toISOString();
    const listed = new Map((await admin.get(`/users/${agent.userId}/api-keys`)).body.data.map((k: any) => [k.id, k]));
    expect((listed.get(a.id) as any).expiresAt).toBe(aEnds);
    advance(3);
    expect(await works(a.key)).toBe(401);
    // The keys minted during the overlap live to the original expiry, not 3 seconds.
    for (const k of [b, c, d]) expect(await works(k.body.key)).toBe(200);
    advance((new Date(original).getTime() - now.getTime()) / 1000 - 1);
    for (const k of [b, c, d]) expect(await works(k.body.key)).toBe(200);
    advance(1);
    for (const k of [b, c, d]) expect(await works(k.body.key)).toBe(401);
    // A itself, ended: 422 as any expired key.
    expect((await rotate(a.id, 0)).body.code).toBe('not_applicable');
  });

  it('rotating the new key during the old one’s overlap copies the original expiry too, and leaves the old key’s overlap alone', async () => {
    const { agent, key: a } = await agentWithScopedKey();
    const b = await admin.post(`/users/${agent.userId}/api-keys/${a.id}/rotate`, { overlapSeconds: 600 });
    advance(5);
    const c = await admin.post(`/users/${agent.userId}/api-keys/${b.body.id}/rotate`, { overlapSeconds: 60 });
    expect(c.body).toMatchObject({ expiresAt: a.expiresAt, rotatedFromId: b.body.id });
    const listed = new Map((await admin.get(`/users/${agent.userId}/api-keys`)).body.data.map((k: any) => [k.id, k]));
    expect((listed.get(a.id) as any).expiresAt).toBe(new Date(now.getTime() + 595_000).toISOString());
    expect((listed.get(b.body.id) as any).expiresAt).toBe(new Date(now.getTime() + 60_000).toISOString());
    advance(60);
    expect([await works(a.key), await works(b.body.key), await works(c.body.key)]).toEqual([200, 401, 200]);
  });

  it('edge: a key that never expires stays never-expiring through repeated rotations (REST and GraphQL, self-service)', async () => {
    const human = await seedHuman(app, ['tensions:read']);
    const me = sessionClient(app, human.token);
    const mine = (await me.post('/me/api-keys', { name: 'forever' })).body;
    expect(mine.expiresAt).toBeNull();
    const first = await me.post(`/me/api-keys/${mine.id}/rotate`, { overlapSeconds: 120 });
    expect(first.body.expiresAt).toBeNull();
    const again = await me.gql(`mutation($k: ID!) { rotateMyApiKey(keyId: $k, input: { overlapSeconds: 1 }) { key expiresAt } }`, { k: mine.id });
    expect(again.body.errors).toBeUndefined();
    expect(again.body.data.rotateMyApiKey.expiresAt).toBeNull();
    advance(1);
    expect(await works(mine.key)).toBe(401);
    advance(365 * 86_400);
    expect(await works(again.body.data.rotateMyApiKey.key)).toBe(200);
    expect(await works(first.body.key)).toBe(200);
  });
});
