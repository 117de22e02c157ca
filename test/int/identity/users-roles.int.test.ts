import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { insertActor, login, seedHuman, sessionClient } from '../../support/sessions.js';

let app: TestApp;
let admin: ReturnType<typeof client>;
let adminId: string;
let adminRoleId: string;
beforeAll(async () => {
  app = await startTestApp();
  const res = await login(app, ADMIN.email, ADMIN.password);
  admin = sessionClient(app, res.token!);
  adminId = res.body.id;
  adminRoleId = res.body.roles[0].id;
});
afterAll(async () => {
  await app?.close();
});

const human = (email: string, extra: object = {}) => ({ email, name: 'Someone', password: 'long-enough-password', ...extra });

describe('users', () => {
  it('validates creation: type/password/actor combinations, lengths, actor type, duplicate email', async () => {
    const agentActor = await insertActor(app, 'agent');
    const orgActor = await insertActor(app, 'organization');
    const codes = async (body: object) => {
      const r = await admin.post('/users', body);
      return [r.status, r.body.code];
    };
    expect(await codes({ type: 'agent', email: 'a1@x.example', name: 'A', password: 'long-enough-password' })).toEqual([400, 'validation_failed']);
    expect(await codes({ email: 'h1@x.example', name: 'H' })).toEqual([400, 'validation_failed']);
    expect(await codes(human('h2@x.example', { linkedActorId: agentActor }))).toEqual([400, 'validation_failed']);
    expect(await codes(human('h3@x.example', { password: 'short' }))).toEqual([400, 'validation_failed']);
    expect(await codes(human('h4@x.example', { name: '   ' }))).toEqual([400, 'validation_failed']);
    expect(await codes(human('h5@x.example', { name: 'x'.repeat(201) }))).toEqual([400, 'validation_failed']);
    expect(await codes({ type: 'agent', email: 'a2@x.example', name: 'A', linkedActorId: orgActor })).toEqual([422, 'actor_not_agent_type']);
    expect(await codes({ type: 'agent', email: 'a3@x.example', name: 'A', linkedActorId: '00000000-0000-4000-8000-000000000001' })).toEqual([
      404,
      'actor_not_found',
    ]);
    const linked = await admin.post('/users', { type: 'agent', email: 'a4@x.example', name: 'A', linkedActorId: agentActor });
    expect(linked.status).toBe(201);
    expect(linked.body).toMatchObject({ linkedActorId: agentActor, linkedActor: { id: agentActor, type: 'agent' } });
    const h = await admin.post('/users', human('Mixed.Case@X.example'));
    expect(h.status).toBe(201);
    expect(h.body.email).toBe('mixed.case@x.example');
    expect(Object.keys(h.body).sort()).toEqual([
      'createdAt',
      'email',
      'id',
      'linkedActor',
      'linkedActorId',
      'name',
      'roles',
      'status',
      'type',
      'updatedAt',
      'version',
    ]);
    expect(await codes(human('MIXED.case@x.EXAMPLE'))).toEqual([409, 'email_taken']);
    // The actor's deletion unlinks the agent (FK ON DELETE SET NULL).
    expect((await admin.del(`/actors/${agentActor}`)).status).toBe(204);
    expect((await admin.get(`/users/${linked.body.id}`)).body.linkedActorId).toBeNull();
  });

  it('lists with type, status and q filters and cursor paging', async () => {
    for (let i = 0; i < 3; i++) await admin.post('/users', { type: 'agent', email: `pager${i}@list.example`, name: `Pager ${i}` });
    const page1 = await admin.get('/users?q=PAGER&limit=2&type=agent');
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((u: any) => u.name)).toEqual(['Pager 0', 'Pager 1']);
    const page2 = await admin.get(`/users?q=pager&limit=2&type=agent&cursor=${page1.body.nextCursor}`);
    expect(page2.body).toMatchObject({ data: [{ name: 'Pager 2' }], nextCursor: null });
    expect((await admin.get('/users?q=pager&type=human')).body.data).toEqual([]);
    expect((await admin.get('/users?q=pager&status=deactivated')).body.data).toEqual([]);
    // the lead picker searches name or email
    expect((await admin.get('/users?q=PAGER1@LIST')).body.data.map((u: any) => u.name)).toEqual(['Pager 1']);
    const long = await admin.get(`/users?q=${'x'.repeat(201)}`);
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'q', code: 'too_long' }] });
    expect((await admin.get('/users?status=gone')).status).toBe(400);
    expect((await admin.get('/users?limit=0')).status).toBe(400);
    expect((await admin.get('/users?limit=101')).status).toBe(400);
    expect((await admin.get('/users?cursor=garbage')).status).toBe(400);
    expect((await admin.get('/users?type=robot')).status).toBe(400);
    const g = await admin.gql('{ users(q: "pager", limit: 1) { data { name } nextCursor } }');
    expect(g.body.data.users.data).toEqual([{ name: 'Pager 0' }]);
  });

  it('updates name/email/link; PATCH with type is 400; unknown or non-UUID ids are 404', async () => {
    const u = (await admin.post('/users', human('patch@x.example'))).body;
    const res = await admin.patch(`/users/${u.id}`, { name: ' Renamed ', email: 'PATCHED@x.example' });
    expect(res.body).toMatchObject({ name: 'Renamed', email: 'patched@x.example' });
    const typed = await admin.patch(`/users/${u.id}`, { type: 'agent' });
    expect(typed.status).toBe(400);
    expect(typed.body.errors[0].path).toBe('type');
    expect((await admin.patch(`/users/${u.id}`, { email: ADMIN.email })).body.code).toBe('email_taken');
    expect((await admin.get('/users/nope')).status).toBe(404);
    expect((await admin.get('/users/00000000-0000-4000-8000-000000000001')).body.code).toBe('user_not_found');
  });

  it('deactivation revokes sessions, and the last active holder of * cannot be deactivated or lose it', async () => {
    const h = await seedHuman(app, ['users:read']);
    expect((await admin.del(`/users/${h.userId}`)).status).toBe(204);
    expect((await sessionClient(app, h.token).get('/auth/me')).status).toBe(401);
    expect((await admin.get(`/users/${h.userId}`)).body.status).toBe('deactivated');

    const self = await admin.del(`/users/${adminId}`);
    expect(self.status).toBe(409);
    expect(self.body.code).toBe('last_admin');
    const strip = await admin.put(`/users/${adminId}/roles`, { roleIds: [] });
    expect(strip.body.code).toBe('last_admin');
    // With a second admin, the first one may go.
    const second = await admin.post('/users', human('second-admin@x.example', { roleIds: [adminRoleId] }));
    expect(second.status).toBe(201);
    expect((await admin.put(`/users/${second.body.id}/roles`, { roleIds: [] })).status).toBe(200);
    expect((await admin.put(`/users/${second.body.id}/roles`, { roleIds: [adminRoleId] })).status).toBe(200);
    const gone = await admin.gql(`mutation { deactivateUser(id: "${second.body.id}") { status } }`);
    expect(gone.body.data.deactivateUser.status).toBe('deactivated');
    expect((await admin.del(`/users/${adminId}`)).body.code).toBe('last_admin');
  });
});

describe('roles', () => {
  it('refuses unknown permissions and unknown inherited roles (400), cycles (409 role_cycle)', async () => {
    expect((await admin.post('/roles', { code: 'bad', name: 'Bad', permissions: ['tensions:fly'] })).status).toBe(400);
    expect((await admin.post('/roles', { code: 'bad', name: 'Bad', permissions: ['tensions:re*'] })).status).toBe(400);
    const unknown = await admin.post('/roles', { code: 'bad', name: 'Bad', permissions: [], inherits: ['00000000-0000-4000-8000-000000000001'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].path).toBe('inherits');
    const a = (await admin.post('/roles', { code: 'cyc-a', name: 'A', permissions: ['tensions:read'] })).body;
    const b = (await admin.post('/roles', { code: 'cyc-b', name: 'B', permissions: [], inherits: [a.id] })).body;
    const c = (await admin.post('/roles', { code: 'cyc-c', name: 'C', permissions: [], inherits: [b.id] })).body;
    expect(c.effectivePermissions).toEqual(['tensions:read']);
    const cycle = await admin.patch(`/roles/${a.id}`, { inherits: [c.id] });
    expect(cycle.status).toBe(409);
    expect(cycle.body.code).toBe('role_cycle');
    expect((await admin.patch(`/roles/${a.id}`, { inherits: [a.id] })).body.code).toBe('role_cycle');
    expect((await admin.get('/permissions')).body.data).toContain('projections:rebuild');
  });

  it('refuses a duplicate role code with 409 code_taken, on create and on rename (SPEC §5)', async () => {
    const first = (await admin.post('/roles', { code: 'dup-code', name: 'First', permissions: [] })).body;
    const again = await admin.post('/roles', { code: 'dup-code', name: 'Second', permissions: [] });
    expect([again.status, again.body.code]).toEqual([409, 'code_taken']);
    const other = (await admin.post('/roles', { code: 'dup-other', name: 'Other', permissions: [] })).body;
    const renamed = await admin.patch(`/roles/${other.id}`, { code: first.code });
    expect([renamed.status, renamed.body.code]).toEqual([409, 'code_taken']);
  });

  it('protects the system role and roles in use', async () => {
    expect((await admin.patch(`/roles/${adminRoleId}`, { permissions: ['users:read'] })).body.code).toBe('system_role');
    expect((await admin.del(`/roles/${adminRoleId}`)).body.code).toBe('system_role');
    expect((await admin.patch(`/roles/${adminRoleId}`, { name: 'Admins' })).status).toBe(200);
    const base = (await admin.post('/roles', { code: 'base', name: 'Base', permissions: ['actors:read'] })).body;
    const child = (await admin.post('/roles', { code: 'child', name: 'Child', permissions: [], inherits: [base.id] })).body;
    expect((await admin.del(`/roles/${base.id}`)).body.code).toBe('role_in_use');
    const holder = await seedUserWithKey(app, { grants: [] });
    expect((await admin.put(`/users/${holder.userId}/roles`, { roleIds: [child.id] })).status).toBe(200);
    expect((await admin.del(`/roles/${child.id}`)).body.code).toBe('role_in_use');
    expect((await admin.put(`/users/${holder.userId}/roles`, { roleIds: [] })).status).toBe(200);
    expect((await admin.del(`/roles/${child.id}`)).status).toBe(204);
    expect((await admin.del(`/roles/${base.id}`)).status).toBe(204);
  });

  it('inherited permissions reach callers at once, and nobody hands out what they do not hold', async () => {
    const parent = (await admin.post('/roles', { code: 'inh-parent', name: 'P', permissions: ['actors:read'] })).body;
    const manager = await seedUserWithKey(app, { grants: ['users:write', 'roles:write', 'roles:read'] });
    const m = client(app, manager.key);
    const escal = await m.post('/roles', { code: 'esc', name: 'Esc', permissions: ['users:read'] });
    expect(escal.status).toBe(403);
    expect(escal.body.code).toBe('escalation_denied');
    // via inherits, too
    expect((await m.post('/roles', { code: 'esc2', name: 'E', permissions: [], inherits: [parent.id] })).body.code).toBe('escalation_denied');
    const own = await m.post('/roles', { code: 'own', name: 'Own', permissions: ['users:write'] });
    expect(own.status).toBe(201);
    expect((await m.patch(`/roles/${own.body.id}`, { permissions: ['users:*'] })).body.code).toBe('escalation_denied');
    expect((await m.patch(`/roles/${own.body.id}`, { inherits: [parent.id] })).body.code).toBe('escalation_denied');
    const target = await seedUserWithKey(app, { type: 'agent', grants: [] });
    expect((await m.put(`/users/${target.userId}/roles`, { roleIds: [adminRoleId] })).body.code).toBe('escalation_denied');
    expect((await m.put(`/users/${target.userId}/roles`, { roleIds: [parent.id] })).body.code).toBe('escalation_denied');
    expect((await m.post('/users', { type: 'agent', email: 'esc@x.example', name: 'E', roleIds: [parent.id] })).body.code).toBe('escalation_denied');
    expect((await m.put(`/users/${target.userId}/roles`, { roleIds: [own.body.id] })).status).toBe(200);

    // Admin gives `own` the parent: the agent holding `own` gains actors:read on its next request.
    expect((await client(app, target.key).get('/auth/me')).body.permissions).toEqual(['users:write']);
    expect((await admin.patch(`/roles/${own.body.id}`, { inherits: [parent.id] })).body.effectivePermissions).toEqual(['actors:read', 'users:write']);
    expect((await client(app, target.key).get('/auth/me')).body.permissions).toEqual(['actors:read', 'users:write']);
  });

  it('the last active * holder cannot lose * through a role edit', async () => {
    const starRole = (await admin.post('/roles', { code: 'star', name: 'Star', permissions: ['*'] })).body;
    // Only the bootstrap admin holds `*` (others made in earlier tests were deactivated or stripped).
    const only = await admin.post('/users', { type: 'agent', email: 'star-agent@x.example', name: 'S', roleIds: [starRole.id] });
    expect(only.status).toBe(201);
    const g = await admin.gql(`mutation { updateRole(id: "${starRole.id}", input: {permissions: ["users:read"]}) { permissions } }`);
    expect(g.body.data.updateRole.permissions).toEqual(['users:read']);
    expect((await admin.put(`/users/${adminId}/roles`, { roleIds: [starRole.id] })).body.code).toBe('last_admin');
    await admin.patch(`/roles/${starRole.id}`, { permissions: ['*'] });
    expect((await admin.put(`/users/${adminId}/roles`, { roleIds: [starRole.id] })).status).toBe(200);
    await admin.del(`/users/${only.body.id}`);
    const edit = await admin.patch(`/roles/${starRole.id}`, { permissions: ['users:read'] });
    expect(edit.status).toBe(409);
    expect(edit.body.code).toBe('last_admin');
  });
});
