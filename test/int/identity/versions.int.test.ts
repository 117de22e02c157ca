// Versions on users, roles and actors (SPEC §2): 1 on creation, +1 on every change, and `expectedVersion`
// on their edits with the tension commands' 409 `version_conflict`, on every face, under concurrency too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { insertActor, login, sessionClient } from '../../support/sessions.js';
import { mcpHttpClient } from '../../support/mcp.js';
import { onPostgres } from '../../support/database.js';
import { holdRow } from '../../support/row-lock.js';

let app: TestApp;
let admin: ReturnType<typeof client>;
beforeAll(async () => {
  app = await startTestApp();
  const res = await login(app, ADMIN.email, ADMIN.password);
  admin = sessionClient(app, res.token!);
});
afterAll(async () => {
  await app?.close();
});

let seq = 0;
const newAgent = async () => (await admin.post('/users', { type: 'agent', email: `v-agent-${++seq}@test.example`, name: `Agent ${seq}` })).body;
const newRole = async (permissions: string[] = ['tensions:read']) =>
  (await admin.post('/roles', { code: `v-role-${++seq}`, name: `Role ${seq}`, permissions })).body;

/**
 * Sends the requests at once; the statuses, sorted. On PostgreSQL the row is held while they arrive, so
 * they all overlap (each waits on the row or the identity lock) and are let go together; the embedded
 * database runs one transaction at a time, so there they only arrive together.
 */
async function statusesOf(table: 'users' | 'roles' | 'actors', id: string, send: () => Promise<{ status: number }>[]) {
  const held = onPostgres ? await holdRow(app.db.url!, table, id) : null;
  const requests = send();
  const sent = Promise.all(requests);
  if (held) {
    await held.waitForWaiters(requests.length);
    await held.release();
  }
  return (await sent).map((r) => r.status).sort();
}

describe('users', () => {
  it('start at 1 and move by one on every change: update, role set, password reset, deactivation; not on a no-op', async () => {
    const user = await newAgent();
    expect(user.version).toBe(1);
    const renamed = await admin.patch(`/users/${user.id}`, { name: 'Renamed' });
    expect(renamed.body).toMatchObject({ name: 'Renamed', version: 2 });
    const same = await admin.patch(`/users/${user.id}`, { name: 'Renamed', expectedVersion: 2 });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ version: 2, updatedAt: renamed.body.updatedAt });
    const role = await newRole();
    expect((await admin.put(`/users/${user.id}/roles`, { roleIds: [role.id] })).body.version).toBe(3);
    // The same set again is no change.
    expect((await admin.put(`/users/${user.id}/roles`, { roleIds: [role.id] })).body.version).toBe(3);
    expect((await admin.put(`/users/${user.id}/roles`, { roleIds: [] })).body.version).toBe(4);
    expect((await admin.del(`/users/${user.id}`)).status).toBe(204);
    expect((await admin.get(`/users/${user.id}`)).body).toMatchObject({ status: 'deactivated', version: 5 });
    // Deactivating again changes nothing.
    expect((await admin.del(`/users/${user.id}`)).status).toBe(204);
    expect((await admin.get(`/users/${user.id}`)).body.version).toBe(5);

    const human = await admin.post('/users', { email: `v-human-${++seq}@test.example`, name: 'Human', password: 'long-enough-password' });
    expect((await admin.post(`/users/${human.body.id}/password`, { password: 'another-long-password' })).status).toBe(204);
    expect((await admin.get(`/users/${human.body.id}`)).body.version).toBe(2);
  });

  it('refuse a stale expectedVersion with 409 version_conflict, writing nothing (PATCH and PUT roles)', async () => {
    const user = await newAgent();
    await admin.patch(`/users/${user.id}`, { name: 'Second' });
    const stale = await admin.patch(`/users/${user.id}`, { name: 'Lost edit', expectedVersion: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'version_conflict', currentVersion: 2, expectedVersion: 1 });
    const role = await newRole();
    const staleRoles = await admin.put(`/users/${user.id}/roles`, { roleIds: [role.id], expectedVersion: 1 });
    expect(staleRoles.status).toBe(409);
    expect(staleRoles.body).toMatchObject({ code: 'version_conflict', currentVersion: 2, expectedVersion: 1 });
    expect((await admin.get(`/users/${user.id}`)).body).toMatchObject({ name: 'Second', roles: [], version: 2 });
    expect((await admin.patch(`/users/${user.id}`, { name: 'Third', expectedVersion: 2 })).body).toMatchObject({ name: 'Third', version: 3 });
    expect((await admin.put(`/users/${user.id}/roles`, { roleIds: [role.id], expectedVersion: 3 })).body.version).toBe(4);
  });

  it('refuse an expectedVersion that is not a non-negative integer (400), and an unknown user stays 404', async () => {
    const user = await newAgent();
    for (const expectedVersion of ['1', -1, 1.5, true]) {
      const res = await admin.patch(`/users/${user.id}`, { name: 'X', expectedVersion });
      expect(res.status, JSON.stringify(expectedVersion)).toBe(400);
      expect(res.body.errors[0].path).toBe('expectedVersion');
    }
    expect((await admin.patch('/users/7d3f1c52-5b1e-4c6a-9d0e-2f4b8a6c1e90', { name: 'X', expectedVersion: 1 })).status).toBe(404);
  });

  it('of concurrent edits expecting the same version, exactly one succeeds and the others get 409', async () => {
    const user = await newAgent();
    const edits = () => [1, 2, 3, 4].map((i) => admin.patch(`/users/${user.id}`, { name: `Concurrent ${i}`, expectedVersion: 1 }));
    expect(await statusesOf('users', user.id, edits)).toEqual([200, 409, 409, 409]);
    const role = await newRole();
    const sets = () => [1, 2, 3].map(() => admin.put(`/users/${user.id}/roles`, { roleIds: [role.id], expectedVersion: 2 }));
    expect(await statusesOf('users', user.id, sets)).toEqual([200, 409, 409]);
    expect((await admin.get(`/users/${user.id}`)).body.version).toBe(3);
  });
});

describe('roles', () => {
  it('move by one on every change, not on a no-op; a stale expectedVersion is 409 and writes nothing', async () => {
    const role = await newRole();
    expect(role.version).toBe(1);
    expect((await admin.patch(`/roles/${role.id}`, { permissions: ['tensions:read', 'actors:read'] })).body.version).toBe(2);
    expect((await admin.patch(`/roles/${role.id}`, { permissions: ['actors:read', 'tensions:read'], name: role.name })).body.version).toBe(2);
    const stale = await admin.patch(`/roles/${role.id}`, { permissions: [], expectedVersion: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'version_conflict', currentVersion: 2, expectedVersion: 1 });
    expect((await admin.get(`/roles/${role.id}`)).body).toMatchObject({ permissions: ['tensions:read', 'actors:read'], version: 2 });
  });

  it('two concurrent edits of one role with the same expectedVersion: one 200, one 409 (no lost grant)', async () => {
    const role = await newRole(['tensions:read']);
    const statuses = await statusesOf('roles', role.id, () => [
      admin.patch(`/roles/${role.id}`, { permissions: ['tensions:read', 'actors:read'], expectedVersion: 1 }),
      admin.patch(`/roles/${role.id}`, { permissions: ['tensions:read', 'users:read'], expectedVersion: 1 }),
    ]);
    expect(statuses).toEqual([200, 409]);
    const after = (await admin.get(`/roles/${role.id}`)).body;
    expect(after.version).toBe(2);
    expect(after.permissions).toHaveLength(2);
  });
});

describe('actors', () => {
  it('move by one on a rename, not on the same name; stale and concurrent edits are 409', async () => {
    const id = await insertActor(app, 'organization', 'Versioned Org');
    expect((await admin.get(`/actors/${id}`)).body.version).toBe(1);
    expect((await admin.patch(`/actors/${id}`, { name: 'Versioned Org 2' })).body.version).toBe(2);
    expect((await admin.patch(`/actors/${id}`, { name: 'Versioned Org 2', expectedVersion: 2 })).body.version).toBe(2);
    const stale = await admin.patch(`/actors/${id}`, { name: 'Lost', expectedVersion: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'version_conflict', currentVersion: 2, expectedVersion: 1 });
    const statuses = await statusesOf('actors', id, () => [1, 2, 3].map((i) => admin.patch(`/actors/${id}`, { name: `Race ${i}`, expectedVersion: 2 })));
    expect(statuses).toEqual([200, 409, 409]);
    expect((await admin.patch('/actors/not-a-uuid', { name: 'X', expectedVersion: 1 })).status).toBe(404);
  });
});

describe('GraphQL and MCP', () => {
  it('expose version on User, Role and Actor, and take expectedVersion on their edits (VERSION_CONFLICT)', async () => {
    const user = await newAgent();
    const role = await newRole();
    const actorId = await insertActor(app, 'organization', 'GraphQL Org');
    const read = await admin.gql(`query($u: ID!, $r: ID!, $a: ID!) { user(id: $u) { version } role(id: $r) { version } actor(id: $a) { version } }`, {
      u: user.id,
      r: role.id,
      a: actorId,
    });
    expect(read.body.data).toEqual({ user: { version: 1 }, role: { version: 1 }, actor: { version: 1 } });

    const updateUser = `mutation($id: ID!, $v: Int) { updateUser(id: $id, input: { name: "G", expectedVersion: $v }) { version } }`;
    expect((await admin.gql(updateUser, { id: user.id, v: 1 })).body.data.updateUser.version).toBe(2);
    const conflict = await admin.gql(updateUser, { id: user.id, v: 1 });
    expect(conflict.body.errors[0].extensions).toMatchObject({ code: 'VERSION_CONFLICT', currentVersion: 2, expectedVersion: 1 });

    const setRoles = `mutation($id: ID!, $r: [ID!]!, $v: Int) { setUserRoles(id: $id, roleIds: $r, expectedVersion: $v) { version } }`;
    expect((await admin.gql(setRoles, { id: user.id, r: [role.id], v: 1 })).body.errors[0].extensions.code).toBe('VERSION_CONFLICT');
    expect((await admin.gql(setRoles, { id: user.id, r: [role.id], v: 2 })).body.data.setUserRoles.version).toBe(3);

    const updateRole = `mutation($id: ID!, $v: Int) { updateRole(id: $id, input: { name: "Renamed", expectedVersion: $v }) { version } }`;
    expect((await admin.gql(updateRole, { id: role.id, v: 1 })).body.data.updateRole.version).toBe(2);
    expect((await admin.gql(updateRole, { id: role.id, v: 1 })).body.errors[0].extensions).toMatchObject({ code: 'VERSION_CONFLICT', currentVersion: 2 });

    const updateActor = `mutation($id: ID!, $v: Int) { updateActor(id: $id, input: { name: "Renamed Org", expectedVersion: $v }) { version } }`;
    expect((await admin.gql(updateActor, { id: actorId, v: 1 })).body.data.updateActor.version).toBe(2);
    expect((await admin.gql(updateActor, { id: actorId, v: 1 })).body.errors[0].extensions).toMatchObject({ code: 'VERSION_CONFLICT', currentVersion: 2 });

    const agent = await seedUserWithKey(app, { grants: ['actors:read'] });
    const mcp = await mcpHttpClient(app, agent.key);
    try {
      const got = await mcp.callTool({ name: 'get_actor', arguments: { id: actorId } });
      expect(got.structuredContent).toMatchObject({ id: actorId, version: 2 });
    } finally {
      await mcp.close();
    }
  });
});
