// Issue 17, items 1–3: a caller acts only on users whose effective permissions it holds itself (SPEC §2
// "No escalation"). Each case is the reviewer's reproduction, through the real app, with what must not change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { login, seedHuman, sessionClient } from '../../support/sessions.js';

let app: TestApp;
let adminId: string;
let adminRoleId: string;
/** a human holding only users:write, signed in with a password session (the reviewer's "ordinary account") */
let writer: ReturnType<typeof sessionClient>;
let writerId: string;

beforeAll(async () => {
  app = await startTestApp();
  const res = await login(app, ADMIN.email, ADMIN.password);
  adminId = res.body.id;
  adminRoleId = res.body.roles[0].id;
  const w = await seedHuman(app, ['users:write']);
  writer = sessionClient(app, w.token);
  writerId = w.userId;
});
afterAll(async () => {
  await app?.close();
});

const NEW_PASSWORD = 'attacker-chosen-password-1';

async function userRow(id: string) {
  const [row] = await app.em().execute('select email, name, status, password_hash from users where id = ?', [id]);
  const roles = await app.em().execute('select role_id from user_roles where user_id = ? order by role_id', [id]);
  const keys = await app.em().execute('select id, revoked_at from api_keys where user_id = ? order by id', [id]);
  return { ...row, roles, keys };
}

describe('item 1: resetting a more privileged user’s password', () => {
  it('REST: a users:write-only human cannot reset the admin’s password, and cannot sign in as the admin', async () => {
    const before = await userRow(adminId);
    const res = await writer.post(`/users/${adminId}/password`, { password: NEW_PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'escalation_denied', status: 403 });
    expect(await userRow(adminId)).toEqual(before);
    expect((await login(app, ADMIN.email, NEW_PASSWORD)).status).toBe(401);
    expect((await login(app, ADMIN.email, ADMIN.password)).status).toBe(200);
  });

  it('GraphQL resetUserPassword: ESCALATION_DENIED, the password unchanged', async () => {
    const before = await userRow(adminId);
    const res = await writer.gql('mutation($id: ID!, $p: String!) { resetUserPassword(id: $id, password: $p) }', { id: adminId, p: NEW_PASSWORD });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('ESCALATION_DENIED');
    expect(await userRow(adminId)).toEqual(before);
  });

  it('control: the same caller resets the password of a human holding no more than it does', async () => {
    const peer = await seedHuman(app, ['users:write']);
    expect((await writer.post(`/users/${peer.userId}/password`, { password: NEW_PASSWORD })).status).toBe(204);
    expect((await login(app, peer.email, NEW_PASSWORD)).status).toBe(200);
  });
});

describe('item 2: keys for a more privileged agent', () => {
  it('REST and GraphQL: no key for an agent holding *, so no way to give oneself the admin role', async () => {
    const robot = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    const before = await userRow(robot.userId);
    const rest = await writer.post(`/users/${robot.userId}/api-keys`, { name: 'stolen' });
    expect(rest.status).toBe(403);
    expect(rest.body.code).toBe('escalation_denied');
    expect(rest.body.key).toBeUndefined();
    const gql = await writer.gql('mutation($id: ID!) { provisionApiKey(userId: $id, input: {name: "stolen"}) { key } }', { id: robot.userId });
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('ESCALATION_DENIED');
    expect(gql.body.data?.provisionApiKey ?? null).toBeNull();
    expect(await userRow(robot.userId)).toEqual(before);
    // what the reviewer did next: the writer still cannot hand itself the admin role
    expect((await writer.put(`/users/${writerId}/roles`, { roleIds: [adminRoleId] })).body.code).toBe('escalation_denied');
  });

  it('control: the same caller provisions a key for an agent holding a subset of its permissions', async () => {
    const helper = await seedUserWithKey(app, { type: 'agent', grants: ['users:write'] });
    const res = await writer.post(`/users/${helper.userId}/api-keys`, { name: 'ok' });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^mk_/);
  });
});

describe('item 3: acting on more privileged users in general', () => {
  it('cannot change the admin’s email or name, remove its roles, deactivate it, or revoke its keys', async () => {
    const adminKey = await seedUserWithKey(app, { type: 'human', grants: ['*'] });
    const before = await userRow(adminId);
    const beforeKeyHolder = await userRow(adminKey.userId);
    const attempts = [
      await writer.patch(`/users/${adminId}`, { email: 'mine@attacker.example' }),
      await writer.patch(`/users/${adminId}`, { name: 'Pwned' }),
      await writer.put(`/users/${adminId}/roles`, { roleIds: [] }),
      await writer.del(`/users/${adminId}`),
      await writer.put(`/users/${adminKey.userId}/roles`, { roleIds: [] }),
      await writer.del(`/users/${adminKey.userId}`),
      await writer.del(`/users/${adminKey.userId}/api-keys/${adminKey.keyId}`),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('escalation_denied');
    }
    expect(await userRow(adminId)).toEqual(before);
    expect(await userRow(adminKey.userId)).toEqual(beforeKeyHolder);
    // The key still works.
    expect((await client(app, adminKey.key).get('/auth/me')).status).toBe(200);
  });

  it('removing roles is checked too: the caller must hold the target’s current permissions, not only the added ones', async () => {
    // users:write alone may not strip a role granting tensions:read, which the caller does not hold itself.
    const reader = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read'] });
    const res = await writer.put(`/users/${reader.userId}/roles`, { roleIds: [] });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('escalation_denied');
    expect(res.body.missingPermissions).toEqual(['tensions:read']);
    expect((await userRow(reader.userId)).roles).toEqual([{ role_id: reader.roleId }]);
  });

  it('listing a more privileged user’s keys is reading: users:read suffices on REST and GraphQL (SPEC §2), metadata only', async () => {
    const lister = client(app, (await seedUserWithKey(app, { grants: ['users:read'] })).key);
    const strong = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    const listed = await lister.get(`/users/${strong.userId}/api-keys`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.data.map((k: { id: string }) => k.id)).toEqual([strong.keyId]);
    expect(listed.body.data[0]).not.toHaveProperty('key');
    expect(JSON.stringify(listed.body)).not.toContain(strong.key);
    const gql = await lister.gql('query($id: ID!) { userApiKeys(userId: $id) { data { id prefix } } }', { id: strong.userId });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.userApiKeys.data).toEqual([{ id: strong.keyId, prefix: strong.key.slice(0, 12) }]);
    // Reading the user itself is not limited either; acting on its keys still is.
    expect((await lister.get(`/users/${strong.userId}`)).status).toBe(200);
    // Edges: users:read is still needed, and an unknown user is still 404.
    const none = client(app, (await seedUserWithKey(app, { grants: ['tensions:read'] })).key);
    expect((await none.get(`/users/${strong.userId}/api-keys`)).body.code).toBe('forbidden');
    expect((await lister.get(`/users/00000000-0000-4000-8000-000000000000/api-keys`)).body.code).toBe('user_not_found');
    const writerRevoke = await writer.del(`/users/${strong.userId}/api-keys/${strong.keyId}`);
    expect(writerRevoke.body.code).toBe('escalation_denied');
  });

  it('control: the same caller updates, re-roles, deactivates and revokes keys of users holding no more than it does', async () => {
    const peer = await seedUserWithKey(app, { type: 'agent', grants: ['users:write'] });
    expect((await writer.patch(`/users/${peer.userId}`, { name: 'Renamed peer' })).status).toBe(200);
    expect((await writer.put(`/users/${peer.userId}/roles`, { roleIds: [] })).status).toBe(200);
    expect((await writer.del(`/users/${peer.userId}/api-keys/${peer.keyId}`)).status).toBe(204);
    expect((await writer.del(`/users/${peer.userId}`)).status).toBe(204);
    expect(await userRow(peer.userId)).toMatchObject({ name: 'Renamed peer', status: 'deactivated', roles: [] });
  });

  it('a holder of * acts on anyone, and anyone acts on itself', async () => {
    const admin = sessionClient(app, (await login(app, ADMIN.email, ADMIN.password)).token!);
    const strong = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    expect((await admin.patch(`/users/${strong.userId}`, { name: 'Still an admin’s to rename' })).status).toBe(200);
    expect((await writer.patch(`/users/${writerId}`, { name: 'Me, renamed' })).status).toBe(200);
  });
});
