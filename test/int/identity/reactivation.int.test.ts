// Reactivation (SPEC §5): a deactivated user becomes active again; no key or session comes back; the
// escalation rule applies; reactivating an active user is a no-op 200.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { login, PASSWORD, seedHuman, sessionClient } from '../../support/sessions.js';

let app: TestApp;
let admin: ReturnType<typeof client>;
beforeAll(async () => {
  app = await startTestApp();
  admin = sessionClient(app, (await login(app, ADMIN.email, ADMIN.password)).token!);
});
afterAll(async () => {
  await app?.close();
});

describe('POST /users/:id/reactivate', () => {
  it('makes a deactivated agent active again without bringing its keys back; a new key works', async () => {
    const agent = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read'] });
    expect((await admin.del(`/users/${agent.userId}`)).status).toBe(204);
    expect((await client(app, agent.key).get('/auth/me')).status).toBe(401);
    const before = (await admin.get(`/users/${agent.userId}`)).body;

    const res = await admin.post(`/users/${agent.userId}/reactivate`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: agent.userId, status: 'active', version: before.version + 1, roles: [{ id: agent.roleId }] });
    expect((await client(app, agent.key).get('/auth/me')).status).toBe(401);
    const keys = (await admin.get(`/users/${agent.userId}/api-keys`)).body.data;
    expect(keys.every((k: { revokedAt: string | null }) => k.revokedAt !== null)).toBe(true);
    const fresh = await admin.post(`/users/${agent.userId}/api-keys`, { name: 'after reactivation' });
    expect(fresh.status).toBe(201);
    expect((await client(app, fresh.body.key).get('/auth/me')).body.permissions).toEqual(['tensions:read']);
  });

  it('brings no session back: a reactivated human signs in again', async () => {
    const human = await seedHuman(app, ['tensions:read']);
    expect((await admin.del(`/users/${human.userId}`)).status).toBe(204);
    expect((await login(app, human.email, PASSWORD)).status).toBe(401);
    expect((await admin.post(`/users/${human.userId}/reactivate`)).status).toBe(200);
    expect((await sessionClient(app, human.token).get('/auth/me')).status).toBe(401);
    const again = await login(app, human.email, PASSWORD);
    expect(again.status).toBe(200);
    expect((await sessionClient(app, again.token!).get('/auth/me')).status).toBe(200);
  });

  it('is a no-op 200 on an active user (same version and updatedAt)', async () => {
    const agent = await seedUserWithKey(app, { type: 'agent', grants: [] });
    const before = (await admin.get(`/users/${agent.userId}`)).body;
    const res = await admin.post(`/users/${agent.userId}/reactivate`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(before);
    expect((await client(app, agent.key).get('/auth/me')).status).toBe(200);
  });

  it('follows the escalation rule and needs users:write; unknown users are 404', async () => {
    const strong = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    expect((await admin.del(`/users/${strong.userId}`)).status).toBe(204);
    const writer = await seedUserWithKey(app, { type: 'agent', grants: ['users:read', 'users:write'] });
    const denied = await client(app, writer.key).post(`/users/${strong.userId}/reactivate`);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'escalation_denied', missingPermissions: ['*'] });
    expect((await admin.get(`/users/${strong.userId}`)).body.status).toBe('deactivated');
    const reader = await seedUserWithKey(app, { type: 'agent', grants: ['users:read'] });
    expect((await client(app, reader.key).post(`/users/${strong.userId}/reactivate`)).body).toMatchObject({
      code: 'forbidden',
      missingPermission: 'users:write',
    });
    expect((await admin.post('/users/7d3f1c52-5b1e-4c6a-9d0e-2f4b8a6c1e90/reactivate')).body.code).toBe('user_not_found');
    expect((await admin.post('/users/not-a-uuid/reactivate')).status).toBe(404);
    // A peer the writer may act on.
    const peer = await seedUserWithKey(app, { type: 'agent', grants: ['users:read'] });
    expect((await admin.del(`/users/${peer.userId}`)).status).toBe(204);
    expect((await client(app, writer.key).post(`/users/${peer.userId}/reactivate`)).body.status).toBe('active');
  });

  it('over GraphQL: reactivateUser(id)', async () => {
    const agent = await seedUserWithKey(app, { type: 'agent', grants: [] });
    await admin.gql(`mutation($id: ID!) { deactivateUser(id: $id) { status } }`, { id: agent.userId });
    const res = await admin.gql(`mutation($id: ID!) { reactivateUser(id: $id) { status version } }`, { id: agent.userId });
    expect(res.body.data.reactivateUser).toEqual({ status: 'active', version: 3 });
    const missing = await admin.gql(`mutation { reactivateUser(id: "7d3f1c52-5b1e-4c6a-9d0e-2f4b8a6c1e90") { id } }`);
    expect(missing.body.errors[0].extensions.code).toBe('USER_NOT_FOUND');
  });
});
