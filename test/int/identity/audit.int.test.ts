// The audit trail (SPEC §11, issue 14): every identity and administration action is recorded once, in the
// transaction of the change, with who (session or key, which face), what and which fields changed; never a
// secret; a refused change records nothing; the database refuses to rewrite the trail; REST and GraphQL
// serve it with the same filters and cursors.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { login } from '../../support/sessions.js';
import { rpc } from '../../support/raw-http.js';

let app: TestApp;
/** an agent holding `*`, calling with its key */
let robot: SeededUser;
/** the bootstrap admin (a human), signed in */
let adminToken: string;
let adminId: string;

const SECRETS = { first: 'first-secret-password-1', reset: 'reset-secret-password-2', changed: 'changed-secret-password-3', guess: 'a-wrong-guess-password-4' };
/** every plaintext key minted here, to prove none reaches the trail */
const minted: string[] = [];

type Entry = {
  id: string;
  at: string;
  action: string;
  by: { kind: string; userId: string | null; userName: string | null; apiKeyId: string | null; apiKeyName: string | null; via: string };
  target: { type: string; id: string | null; label: string | null };
  changes: Record<string, { from: unknown; to: unknown }>;
  requestId: string | null;
  clientAddress: string | null;
};

/** A client as the robot's key (or a session token) whose requests carry `rid` as their request id. */
const asRobot = (rid: string) => client(app, robot.key, { 'x-request-id': rid });
const asSession = (token: string, rid: string) => client(app, undefined, { cookie: `session=${token}`, 'x-csrf-protection': '1', 'x-request-id': rid });

/** Every entry, newest first, through REST paging. */
async function allEntries(query = ''): Promise<Entry[]> {
  const out: Entry[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 200; i++) {
    const res = await client(app, robot.key).get(`/audit?limit=100${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body.data);
    cursor = res.body.nextCursor;
    if (!cursor) return out;
  }
  throw new Error('too many pages');
}

/** The entries of one request: the audited action it performed appears exactly once. */
async function entriesOf(rid: string): Promise<Entry[]> {
  return (await allEntries()).filter((e) => e.requestId === rid);
}
async function onlyEntryOf(rid: string): Promise<Entry> {
  const found = await entriesOf(rid);
  expect(found, `entries of request ${rid}`).toHaveLength(1);
  return found[0];
}

const count = async () => Number((await app.em().execute('select count(*)::int as n from audit_log'))[0].n);

const robotBy = (via: string) => ({ kind: 'agent', userId: robot.userId, userName: robot.name, apiKeyId: robot.keyId, apiKeyName: `${robot.name} key`, via });
const adminBy = (via: string) => ({ kind: 'human', userId: adminId, userName: 'Administrator', apiKeyId: null, apiKeyName: null, via });

beforeAll(async () => {
  app = await startTestApp();
  robot = await seedUserWithKey(app, { type: 'agent', grants: ['*'], name: 'Audit robot' });
  minted.push(robot.key);
  const res = await login(app, ADMIN.email, ADMIN.password);
  adminToken = res.token!;
  adminId = res.body.id;
});
afterAll(async () => {
  await app?.close();
});

describe('audit trail', () => {
  it('records the life of a human user once per action, with who (key or session), the face, the target and the changed fields', async () => {
    let rid = randomUUID();
    const created = await asRobot(rid).post('/users', { email: 'Dana@Test.example', name: 'Dana', password: SECRETS.first });
    expect(created.status).toBe(201);
    const danaId: string = created.body.id;
    const dana = { type: 'user', id: danaId, label: 'dana@test.example' };
    const e1 = await onlyEntryOf(rid);
    expect(e1).toMatchObject({ action: 'user.created', by: robotBy('rest'), target: dana, requestId: rid });
    expect(e1.changes).toEqual({
      type: { from: null, to: 'human' },
      email: { from: null, to: 'dana@test.example' },
      name: { from: null, to: 'Dana' },
      roleIds: { from: null, to: [] },
    });
    expect(e1.clientAddress).toMatch(/127\.0\.0\.1/);

    rid = randomUUID();
    const renamed = await asSession(adminToken, rid).gql(
      'mutation($id: ID!) { updateUser(id: $id, input: { name: "Dana R", email: "dana@test.example" }) { id } }',
      { id: danaId },
    );
    expect(renamed.body.errors).toBeUndefined();
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'user.updated',
      by: adminBy('graphql'),
      target: dana,
      changes: { name: { from: 'Dana', to: 'Dana R' } },
    });
    expect(Object.keys((await onlyEntryOf(rid)).changes)).toEqual(['name']);

    // An edit that changes nothing is no action.
    rid = randomUUID();
    expect((await asRobot(rid).patch(`/users/${danaId}`, { name: 'Dana R' })).status).toBe(200);
    expect(await entriesOf(rid)).toEqual([]);

    const role = await asRobot(randomUUID()).post('/roles', { code: 'audit-readers', name: 'Readers', permissions: ['tensions:read'] });
    rid = randomUUID();
    expect((await asRobot(rid).put(`/users/${danaId}/roles`, { roleIds: [role.body.id] })).status).toBe(200);
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'user.roles_set',
      by: robotBy('rest'),
      target: dana,
      changes: { roleIds: { from: [], to: [role.body.id] } },
    });

    rid = randomUUID();
    expect((await asRobot(rid).post(`/users/${danaId}/password`, { password: SECRETS.reset })).status).toBe(204);
    expect(await onlyEntryOf(rid)).toMatchObject({ action: 'user.password_reset', by: robotBy('rest'), target: dana, changes: {} });

    rid = randomUUID();
    const signIn = await fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': rid },
      body: JSON.stringify({ email: 'dana@test.example', password: SECRETS.reset }),
    });
    expect(signIn.status).toBe(200);
    const danaToken = /session=([^;]*)/.exec(signIn.headers.get('set-cookie')!)![1];
    const loginEntry = await onlyEntryOf(rid);
    expect(loginEntry).toMatchObject({
      action: 'auth.login',
      by: { kind: 'human', userId: danaId, userName: 'Dana R', apiKeyId: null, apiKeyName: null, via: 'rest' },
      target: dana,
      changes: {},
    });
    expect(loginEntry.clientAddress).toMatch(/127\.0\.0\.1/);

    const danaBy = { kind: 'human', userId: danaId, userName: 'Dana R', apiKeyId: null, apiKeyName: null };
    rid = randomUUID();
    expect((await asSession(danaToken, rid).post('/me/password', { currentPassword: SECRETS.reset, newPassword: SECRETS.changed })).status).toBe(204);
    expect(await onlyEntryOf(rid)).toMatchObject({ action: 'user.password_changed', by: { ...danaBy, via: 'rest' }, target: dana, changes: {} });

    rid = randomUUID();
    const own = await asSession(danaToken, rid).post('/me/api-keys', { name: 'laptop' });
    expect(own.status).toBe(201);
    minted.push(own.body.key);
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'key.created',
      by: { ...danaBy, via: 'rest' },
      target: { type: 'key', id: own.body.id, label: 'laptop' },
      changes: { name: { from: null, to: 'laptop' }, userId: { from: null, to: danaId } },
    });

    rid = randomUUID();
    const revoked = await asSession(danaToken, rid).gql('mutation($k: ID!) { revokeMyApiKey(keyId: $k) }', { k: own.body.id });
    expect(revoked.body.data?.revokeMyApiKey).toBe(true);
    const revokeEntry = await onlyEntryOf(rid);
    expect(revokeEntry).toMatchObject({ action: 'key.revoked', by: { ...danaBy, via: 'graphql' }, target: { type: 'key', id: own.body.id, label: 'laptop' } });
    expect(revokeEntry.changes.revokedAt.from).toBeNull();
    // Revoking again is safe to retry and revokes nothing: no second entry.
    rid = randomUUID();
    expect((await asSession(danaToken, rid).del(`/me/api-keys/${own.body.id}`)).status).toBe(204);
    expect(await entriesOf(rid)).toEqual([]);

    rid = randomUUID();
    expect((await asSession(danaToken, rid).post('/auth/logout')).status).toBe(204);
    expect(await onlyEntryOf(rid)).toMatchObject({ action: 'auth.logout', by: { ...danaBy, via: 'rest' }, target: dana });

    rid = randomUUID();
    expect((await asRobot(rid).del(`/users/${danaId}`)).status).toBe(204);
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'user.deactivated',
      by: robotBy('rest'),
      target: dana,
      changes: { status: { from: 'active', to: 'deactivated' } },
    });
    rid = randomUUID();
    expect((await asRobot(rid).del(`/users/${danaId}`)).status).toBe(204);
    expect(await entriesOf(rid)).toEqual([]);
  });

  it('records agent keys provisioned and revoked by an administrator', async () => {
    let rid = randomUUID();
    const agent = await asSession(adminToken, rid).gql('mutation { createUser(input: { type: agent, email: "bot@test.example", name: "Bot" }) { id } }');
    const agentId: string = agent.body.data.createUser.id;
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'user.created',
      by: adminBy('graphql'),
      target: { type: 'user', id: agentId, label: 'bot@test.example' },
    });

    rid = randomUUID();
    const key = await asRobot(rid).post(`/users/${agentId}/api-keys`, { name: 'ci', expiresAt: '2099-01-01T00:00:00.000Z' });
    expect(key.status).toBe(201);
    minted.push(key.body.key);
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'key.provisioned',
      by: robotBy('rest'),
      target: { type: 'key', id: key.body.id, label: 'ci' },
      changes: { name: { from: null, to: 'ci' }, userId: { from: null, to: agentId }, expiresAt: { from: null, to: '2099-01-01T00:00:00.000Z' } },
    });

    rid = randomUUID();
    expect((await asRobot(rid).del(`/users/${agentId}/api-keys/${key.body.id}`)).status).toBe(204);
    expect(await onlyEntryOf(rid)).toMatchObject({ action: 'key.revoked', by: robotBy('rest'), target: { type: 'key', id: key.body.id, label: 'ci' } });
  });

  it('records scoped keys, rotations and reactivations once each; a no-op reactivation records nothing', async () => {
    const reader = await client(app, robot.key).post('/roles', { code: 'audit-reader', name: 'Reader', permissions: ['tensions:read'] });
    const agent = await client(app, robot.key).post('/users', { type: 'agent', email: 'rotor@test.example', name: 'Rotor', roleIds: [reader.body.id] });
    let rid = randomUUID();
    const key = await asRobot(rid).post(`/users/${agent.body.id}/api-keys`, { name: 'scoped', permissions: ['tensions:read'] });
    expect(key.status).toBe(201);
    minted.push(key.body.key);
    expect((await onlyEntryOf(rid)).changes).toMatchObject({ permissions: { from: null, to: ['tensions:read'] } });

    rid = randomUUID();
    const rotated = await asRobot(rid).post(`/users/${agent.body.id}/api-keys/${key.body.id}/rotate`, { overlapSeconds: 3600 });
    expect(rotated.status).toBe(201);
    minted.push(rotated.body.key);
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'key.rotated',
      by: robotBy('rest'),
      target: { type: 'key', id: key.body.id, label: 'scoped' },
      changes: { rotatedToId: { from: null, to: rotated.body.id }, overlapSeconds: { from: null, to: 3600 } },
    });

    expect((await client(app, robot.key).del(`/users/${agent.body.id}`)).status).toBe(204);
    rid = randomUUID();
    expect((await asRobot(rid).post(`/users/${agent.body.id}/reactivate`, {})).status).toBe(200);
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'user.reactivated',
      target: { type: 'user', id: agent.body.id },
      changes: { status: { from: 'deactivated', to: 'active' } },
    });
    rid = randomUUID();
    expect((await asRobot(rid).post(`/users/${agent.body.id}/reactivate`, {})).status).toBe(200);
    expect(await entriesOf(rid)).toEqual([]);
  });

  it('records roles created, updated (only what changed) and deleted', async () => {
    let rid = randomUUID();
    const role = await asRobot(rid).post('/roles', { code: 'auditors', name: 'Auditors', permissions: ['audit:read'] });
    expect(role.status).toBe(201);
    const target = { type: 'role', id: role.body.id, label: 'auditors' };
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'role.created',
      by: robotBy('rest'),
      target,
      changes: {
        code: { from: null, to: 'auditors' },
        name: { from: null, to: 'Auditors' },
        permissions: { from: null, to: ['audit:read'] },
        inherits: { from: null, to: [] },
      },
    });

    rid = randomUUID();
    expect((await asSession(adminToken, rid).patch(`/roles/${role.body.id}`, { name: 'Auditors', permissions: ['audit:read', 'users:read'] })).status).toBe(
      200,
    );
    const updated = await onlyEntryOf(rid);
    expect(updated).toMatchObject({
      action: 'role.updated',
      by: adminBy('rest'),
      target,
      changes: { permissions: { from: ['audit:read'], to: ['audit:read', 'users:read'] } },
    });
    expect(Object.keys(updated.changes)).toEqual(['permissions']);

    rid = randomUUID();
    expect((await asRobot(rid).del(`/roles/${role.body.id}`)).status).toBe(204);
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'role.deleted',
      target,
      changes: { code: { from: 'auditors', to: null }, name: { from: 'Auditors', to: null }, permissions: { from: ['audit:read', 'users:read'], to: null } },
    });
  });

  it('records actors created, updated and deleted (not tension commands), and projection rebuilds with their report', async () => {
    let rid = randomUUID();
    const actor = await asRobot(rid).post('/actors', { name: 'Org A', type: 'organization' });
    const target = { type: 'actor', id: actor.body.id, label: 'Org A' };
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'actor.created',
      by: robotBy('rest'),
      target,
      changes: { name: { from: null, to: 'Org A' }, type: { from: null, to: 'organization' } },
    });

    // Tension commands are not repeated in the trail (their events are their record), on any face.
    rid = randomUUID();
    const sensed = await rpc(
      app,
      robot.key,
      'tools/call',
      { name: 'sense_tension', arguments: { name: 'Via MCP', actorId: actor.body.id } },
      { 'x-request-id': rid },
    );
    expect(sensed.json.result.isError, sensed.text).toBeFalsy();
    expect(await entriesOf(rid)).toEqual([]);

    rid = randomUUID();
    expect(
      (await asSession(adminToken, rid).gql('mutation($id: ID!) { updateActor(id: $id, input: { name: "Org B" }) { id } }', { id: actor.body.id })).body.errors,
    ).toBeUndefined();
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'actor.updated',
      by: adminBy('graphql'),
      target: { ...target, label: 'Org B' },
      changes: { name: { from: 'Org A', to: 'Org B' } },
    });
    rid = randomUUID();
    expect((await asRobot(rid).patch(`/actors/${actor.body.id}`, { name: 'Org B' })).status).toBe(200);
    expect(await entriesOf(rid)).toEqual([]);

    expect((await asRobot(randomUUID()).post('/tensions', { name: 'Gap', actorId: actor.body.id })).status).toBe(201);
    rid = randomUUID();
    expect((await asRobot(rid).del(`/actors/${actor.body.id}`)).status).toBe(204);
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'actor.deleted',
      target: { ...target, label: 'Org B' },
      changes: { name: { from: 'Org B', to: null }, type: { from: 'organization', to: null }, discardedTensions: { from: 2, to: 0 } },
    });

    rid = randomUUID();
    expect((await asRobot(rid).gql('mutation { rebuildTensionProjection(dryRun: true) { streams } }')).body.errors).toBeUndefined();
    expect(await entriesOf(rid)).toEqual([]);
    rid = randomUUID();
    const rebuilt = await asRobot(rid).gql('mutation { rebuildTensionProjection(dryRun: false) { streams events inserted updated deleted unchanged } }');
    expect(rebuilt.body.errors).toBeUndefined();
    const entry = await onlyEntryOf(rid);
    expect(entry).toMatchObject({ action: 'projections.rebuilt', by: robotBy('graphql'), target: { type: 'projection', id: null, label: 'tensions' } });
    expect(entry.changes.report).toMatchObject({ from: null, to: { ...rebuilt.body.data.rebuildTensionProjection, dryRun: false } });
  });

  it('records failed logins identically whether the email is unknown, the password wrong, the user an agent or deactivated', async () => {
    await asRobot(randomUUID()).post('/users', { type: 'agent', email: 'agent-x@test.example', name: 'Agent X' });
    const gone = await asRobot(randomUUID()).post('/users', { email: 'gone@test.example', name: 'Gone', password: SECRETS.first });
    expect((await asRobot(randomUUID()).del(`/users/${gone.body.id}`)).status).toBe(204);
    const attempts = [
      { why: 'unknown email', email: 'nobody@test.example', password: SECRETS.first },
      { why: 'wrong password', email: ADMIN.email, password: 'not-the-password-000' },
      { why: 'agent', email: 'agent-x@test.example', password: SECRETS.first },
      { why: 'deactivated', email: 'gone@test.example', password: SECRETS.first },
    ];
    const seen: unknown[] = [];
    for (const a of attempts) {
      const rid = randomUUID();
      const res = await fetch(`${app.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': rid },
        body: JSON.stringify({ email: a.email, password: a.password }),
      });
      expect(res.status, a.why).toBe(401);
      const e = await onlyEntryOf(rid);
      expect(e.target, a.why).toEqual({ type: 'user', id: null, label: a.email });
      const { id: _id, at: _at, requestId: _rid, target: _target, ...rest } = e;
      seen.push(rest);
    }
    expect(seen[0]).toEqual({
      action: 'auth.login_failed',
      by: { kind: 'anonymous', userId: null, userName: null, apiKeyId: null, apiKeyName: null, via: 'rest' },
      changes: {},
      clientAddress: expect.stringMatching(/127\.0\.0\.1/),
    });
    for (const s of seen) expect(s).toEqual(seen[0]);

    // GraphQL's login is audited the same way, as via graphql.
    const rid = randomUUID();
    const res = await client(app, undefined, { 'x-request-id': rid }).gql(
      'mutation { login(input: { email: "nobody@test.example", password: "whatever-it-is-1" }) { authenticatedBy } }',
    );
    expect(res.body.errors?.[0]?.extensions?.code).toBe('INVALID_CREDENTIALS');
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'auth.login_failed',
      by: { kind: 'anonymous', via: 'graphql' },
      target: { type: 'user', id: null, label: 'nobody@test.example' },
    });
  });

  it('writes no entry for a refused change: escalation_denied, email_taken, last_admin, system_role, role_in_use', async () => {
    const limited = await seedUserWithKey(app, { type: 'agent', grants: ['users:write', 'users:read', 'roles:write'] });
    const [star] = await app.em().execute<{ id: string }[]>(`select id from roles where code = 'admin'`);
    const before = await count();
    const refusals: [() => Promise<{ status: number; body: any }>, number, string][] = [
      [() => client(app, limited.key).post('/users', { type: 'agent', email: 'esc@test.example', name: 'Esc', roleIds: [star.id] }), 403, 'escalation_denied'],
      [() => client(app, limited.key).post('/roles', { code: 'too-much', name: 'Too much', permissions: ['*'] }), 403, 'escalation_denied'],
      [() => client(app, limited.key).del(`/users/${adminId}`), 403, 'escalation_denied'],
      [() => client(app, robot.key).post('/users', { email: ADMIN.email, name: 'Dup', password: SECRETS.first }), 409, 'email_taken'],
      [() => client(app, robot.key).del(`/users/${adminId}`), 409, 'last_admin'],
      [() => client(app, robot.key).patch(`/roles/${star.id}`, { permissions: ['users:read'] }), 409, 'system_role'],
      [() => client(app, robot.key).del(`/roles/${limited.roleId}`), 409, 'role_in_use'],
    ];
    for (const [call, status, code] of refusals) {
      const res = await call();
      expect([res.status, res.body.code], code).toEqual([status, code]);
    }
    expect(await count()).toBe(before);
  });

  // Issue 30, item 5: a precondition is not a change; failed password changes and throttled logins are recorded.
  it('user.updated and role.updated never record expectedVersion as a changed field (REST and GraphQL)', async () => {
    const user = await asRobot(randomUUID()).post('/users', { type: 'agent', email: 'versioned@test.example', name: 'Versioned' });
    let rid = randomUUID();
    expect((await asRobot(rid).patch(`/users/${user.body.id}`, { name: 'Versioned twice', expectedVersion: 1 })).status).toBe(200);
    expect((await onlyEntryOf(rid)).changes).toEqual({ name: { from: 'Versioned', to: 'Versioned twice' } });
    // Edge: a patch of nothing but expectedVersion changes nothing, so it records nothing.
    rid = randomUUID();
    expect((await asRobot(rid).patch(`/users/${user.body.id}`, { expectedVersion: 2 })).status).toBe(200);
    expect(await entriesOf(rid)).toEqual([]);
    rid = randomUUID();
    const gqlUser = await asRobot(rid).gql('mutation($id: ID!) { updateUser(id: $id, input: { name: "Versioned thrice", expectedVersion: 2 }) { version } }', {
      id: user.body.id,
    });
    expect(gqlUser.body.errors).toBeUndefined();
    expect((await onlyEntryOf(rid)).changes).toEqual({ name: { from: 'Versioned twice', to: 'Versioned thrice' } });

    const role = await asRobot(randomUUID()).post('/roles', { code: 'versioned', name: 'Versioned', permissions: ['audit:read'] });
    rid = randomUUID();
    expect((await asRobot(rid).patch(`/roles/${role.body.id}`, { permissions: ['users:read'], expectedVersion: 1 })).status).toBe(200);
    expect((await onlyEntryOf(rid)).changes).toEqual({ permissions: { from: ['audit:read'], to: ['users:read'] } });
    rid = randomUUID();
    expect((await asRobot(rid).patch(`/roles/${role.body.id}`, { expectedVersion: 2 })).status).toBe(200);
    expect(await entriesOf(rid)).toEqual([]);
    rid = randomUUID();
    const gqlRole = await asRobot(rid).gql('mutation($id: ID!) { updateRole(id: $id, input: { name: "Versioned role", expectedVersion: 2 }) { version } }', {
      id: role.body.id,
    });
    expect(gqlRole.body.errors).toBeUndefined();
    expect((await onlyEntryOf(rid)).changes).toEqual({ name: { from: 'Versioned', to: 'Versioned role' } });
  });

  it('records a wrong current password on /me/password (REST and GraphQL) as auth.password_change_failed, without the guess', async () => {
    const human = await asRobot(randomUUID()).post('/users', { email: 'changer@test.example', name: 'Changer', password: SECRETS.first });
    const token = (await login(app, 'changer@test.example', SECRETS.first)).token!;
    let rid = randomUUID();
    const res = await asSession(token, rid).post('/me/password', { currentPassword: SECRETS.guess, newPassword: SECRETS.changed });
    expect(res.status).toBe(400);
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'auth.password_change_failed',
      by: { kind: 'human', userId: human.body.id, userName: 'Changer', apiKeyId: null, via: 'rest' },
      target: { type: 'user', id: human.body.id, label: 'changer@test.example' },
      changes: {},
      clientAddress: expect.stringMatching(/127\.0\.0\.1/),
    });
    rid = randomUUID();
    const gql = await asSession(token, rid).gql('mutation($i: ChangePasswordInput!) { changePassword(input: $i) }', {
      i: { currentPassword: SECRETS.guess, newPassword: SECRETS.changed },
    });
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    expect(await onlyEntryOf(rid)).toMatchObject({ action: 'auth.password_change_failed', by: { userId: human.body.id, via: 'graphql' } });
    // Control: a right current password is user.password_changed, not a failure.
    rid = randomUUID();
    expect((await asSession(token, rid).post('/me/password', { currentPassword: SECRETS.first, newPassword: SECRETS.changed })).status).toBe(204);
    expect((await onlyEntryOf(rid)).action).toBe('user.password_changed');
  });

  it('records throttled (429) logins as auth.login_throttled on the email as typed, by nobody, on REST and GraphQL', async () => {
    const email = 'throttled@test.example';
    const attempt = (rid: string) =>
      fetch(`${app.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': rid },
        body: JSON.stringify({ email: ' Throttled@Test.example ', password: SECRETS.guess }),
      });
    // The first 10 are evaluated (auth.login_failed); the 11th is refused unevaluated.
    for (let i = 0; i < 10; i++) expect((await attempt(randomUUID())).status).toBe(401);
    let rid = randomUUID();
    const res = await attempt(rid);
    expect(res.status).toBe(429);
    const { id: _id, at: _at, requestId: _rid, ...entry } = await onlyEntryOf(rid);
    expect(entry).toEqual({
      action: 'auth.login_throttled',
      by: { kind: 'anonymous', userId: null, userName: null, apiKeyId: null, apiKeyName: null, via: 'rest' },
      target: { type: 'user', id: null, label: email },
      changes: {},
      clientAddress: expect.stringMatching(/127\.0\.0\.1/),
    });
    rid = randomUUID();
    const gql = await client(app, undefined, { 'x-request-id': rid }).gql(
      'mutation($e: String!, $p: String!) { login(input: { email: $e, password: $p }) { authenticatedBy } }',
      { e: email, p: SECRETS.guess },
    );
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(await onlyEntryOf(rid)).toMatchObject({
      action: 'auth.login_throttled',
      by: { kind: 'anonymous', via: 'graphql' },
      target: { id: null, label: email },
    });
    // Filterable on its own.
    const listed = await client(app, robot.key).get('/audit?action=auth.login_throttled');
    expect(listed.body.data.length).toBeGreaterThanOrEqual(2);
  });

  it('never holds a password, a password hash, a key or a key hash', async () => {
    const text = JSON.stringify(await allEntries());
    const rows = JSON.stringify(await app.em().execute('select * from audit_log'));
    const hashes = [
      ...(await app.em().execute<{ h: string }[]>('select key_hash as h from api_keys')).map((r) => r.h),
      ...(await app.em().execute<{ h: string }[]>('select password_hash as h from users where password_hash is not null')).map((r) => r.h),
    ];
    expect(minted.length).toBeGreaterThanOrEqual(3);
    expect(hashes.length).toBeGreaterThanOrEqual(3);
    for (const haystack of [text, rows]) {
      for (const secret of [...Object.values(SECRETS), ADMIN.password, ...minted, ...hashes]) expect(haystack).not.toContain(secret);
      expect(haystack).not.toContain('$argon2');
      expect(haystack).not.toContain('mk_');
    }
  });

  it('is append-only: the database refuses UPDATE, DELETE and TRUNCATE of audit_log', async () => {
    const before = await count();
    for (const sql of [`update audit_log set action = 'user.created'`, 'delete from audit_log', 'truncate audit_log']) {
      await expect(app.em().execute(sql), sql).rejects.toThrow(/append-only/);
    }
    expect(await count()).toBe(before);
  });
});

describe('reading the audit trail', () => {
  it('filters by action, target, user and time on REST and GraphQL, newest first', async () => {
    const all = await allEntries();
    expect(all.length).toBeGreaterThan(20);
    const ats = all.map((e) => Date.parse(e.at));
    expect([...ats].sort((a, b) => b - a)).toEqual(ats);

    const checks: [string, (e: Entry) => boolean][] = [
      ['action=user.created', (e) => e.action === 'user.created'],
      ['targetType=key', (e) => e.target.type === 'key'],
      [`byUserId=${robot.userId}`, (e) => e.by.userId === robot.userId],
      [`targetId=${adminId}`, (e) => e.target.id === adminId],
      [`action=role.updated&byUserId=${adminId}`, (e) => e.action === 'role.updated' && e.by.userId === adminId],
    ];
    for (const [query, keep] of checks) {
      const expected = all.filter(keep).map((e) => e.id);
      expect(expected.length, query).toBeGreaterThan(0);
      expect(
        (await allEntries(`&${query}`)).map((e) => e.id),
        query,
      ).toEqual(expected);
    }

    const pivot = all[Math.floor(all.length / 2)].at;
    const from = await allEntries(`&from=${encodeURIComponent(pivot)}`);
    const to = await allEntries(`&to=${encodeURIComponent(pivot)}`);
    expect(from.every((e) => Date.parse(e.at) >= Date.parse(pivot))).toBe(true);
    expect(to.every((e) => Date.parse(e.at) < Date.parse(pivot))).toBe(true);
    expect([...from, ...to].map((e) => e.id)).toEqual(all.map((e) => e.id));

    const gql = await client(app, robot.key).gql(
      `query($a: String, $u: ID, $from: DateTime) { auditLog(action: $a, byUserId: $u, from: $from, limit: 100) {
         data { id at action by { kind userId userName apiKeyId apiKeyName via } target { type id label } changes requestId clientAddress } nextCursor } }`,
      { a: 'user.created', u: robot.userId, from: all[all.length - 1].at },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.auditLog.data).toEqual(all.filter((e) => e.action === 'user.created' && e.by.userId === robot.userId));
  });

  it('pages with cursors on REST and GraphQL: each entry once, in the order of one big page; a cursor works on either face', async () => {
    const all = (await allEntries()).map((e) => e.id);
    const restIds: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await client(app, robot.key).get(`/audit?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      restIds.push(...res.body.data.map((e: Entry) => e.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(restIds).toEqual(all);

    const gqlIds: string[] = [];
    cursor = null;
    do {
      const res = await client(app, robot.key).gql('query($c: String) { auditLog(limit: 7, cursor: $c) { data { id } nextCursor } }', { c: cursor });
      gqlIds.push(...res.body.data.auditLog.data.map((e: { id: string }) => e.id));
      cursor = res.body.data.auditLog.nextCursor;
    } while (cursor);
    expect(gqlIds).toEqual(all);

    const first = await client(app, robot.key).get('/audit?limit=3');
    const viaGql = await client(app, robot.key).gql('query($c: String) { auditLog(limit: 3, cursor: $c) { data { id } } }', { c: first.body.nextCursor });
    expect(viaGql.body.data.auditLog.data.map((e: { id: string }) => e.id)).toEqual(all.slice(3, 6));
  });

  it('serves the actions and target types on GraphQL (auditVocabulary): each recorded one is listed, each listed one is a filter both faces and the OpenAPI document accept', async () => {
    const res = await client(app, robot.key).gql('{ auditVocabulary { actions targetTypes } }');
    expect(res.body.errors).toBeUndefined();
    const { actions, targetTypes } = res.body.data.auditVocabulary as { actions: string[]; targetTypes: string[] };
    const all = await allEntries();
    expect(actions).toEqual(expect.arrayContaining([...new Set(all.map((e) => e.action))]));
    expect(targetTypes).toEqual(expect.arrayContaining([...new Set(all.map((e) => e.target.type))]));
    expect(new Set(actions).size).toBe(actions.length);

    const openapi = (await client(app).get('/openapi.json')).body as {
      paths: Record<string, { get: { parameters: { name: string; schema: { enum?: string[] } }[] } }>;
    };
    const param = (name: string) => openapi.paths['/audit'].get.parameters.find((p) => p.name === name)?.schema.enum;
    expect(param('action')).toEqual(actions);
    expect(param('targetType')).toEqual(targetTypes);

    for (const action of actions) {
      expect((await client(app, robot.key).get(`/audit?limit=1&action=${action}`)).status, action).toBe(200);
      const gql = await client(app, robot.key).gql('query($a: String) { auditLog(action: $a, limit: 1) { data { action } } }', { a: action });
      expect(gql.body.errors, action).toBeUndefined();
    }
    for (const type of targetTypes) expect((await client(app, robot.key).get(`/audit?limit=1&targetType=${type}`)).status, type).toBe(200);
  });

  it('refuses bad filters with 400 validation_failed (GraphQL VALIDATION_FAILED), never a 5xx', async () => {
    const c = client(app, robot.key);
    for (const query of [
      'action=user.exploded',
      'targetType=tension',
      'targetId=not-a-uuid',
      'byUserId=42',
      'from=yesterday',
      'to=2026-13-01T00:00:00Z',
      'from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      'limit=0',
      'limit=101',
      'cursor=abc',
      `cursor=${encodeURIComponent('eyJ4IjoxfQ.AAAA')}`,
    ]) {
      const res = await c.get(`/audit?${query}`);
      expect([res.status, res.body.code], query).toEqual([400, 'validation_failed']);
    }
    for (const args of ['action: "nope"', 'targetId: "x"', 'limit: 1000', 'cursor: "abc"']) {
      const res = await c.gql(`{ auditLog(${args}) { data { id } } }`);
      expect(res.body.errors?.[0]?.extensions?.code, args).toBe('VALIDATION_FAILED');
    }
  });

  it('needs audit:read: 403 forbidden on REST, FORBIDDEN on GraphQL, for a caller holding everything else about users', async () => {
    const reader = await seedUserWithKey(app, { type: 'agent', grants: ['users:*', 'roles:*', 'events:read'] });
    const rest = await client(app, reader.key).get('/audit');
    expect([rest.status, rest.body.code, rest.body.missingPermission]).toEqual([403, 'forbidden', 'audit:read']);
    const gql = await client(app, reader.key).gql('{ auditLog { data { id } } }');
    expect(gql.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', missingPermission: 'audit:read' });
    const vocabulary = await client(app, reader.key).gql('{ auditVocabulary { actions } }');
    expect(vocabulary.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', missingPermission: 'audit:read' });
    const allowed = await seedUserWithKey(app, { type: 'agent', grants: ['audit:read'] });
    expect((await client(app, allowed.key).get('/audit?limit=1')).status).toBe(200);
  });
});
