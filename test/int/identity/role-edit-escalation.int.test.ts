// Issue 30, item 2: `roles:write` demoted users it may not act on. SPEC §2: editing or deleting a role acts on
// everyone who holds it, so the caller must hold every effective permission the role carries before the change
// and after it (a rename too), or 403 `escalation_denied`; and an edit of role S reaches every role inheriting
// S, so their effective permissions count as well. Each case is the reviewer's reproduction, with what must not
// change, on REST and GraphQL, and a control on a role the caller covers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { login, sessionClient } from '../../support/sessions.js';

let app: TestApp;
let boss: ReturnType<typeof sessionClient>;
let adminRoleId: string;
/** the reviewer's caller: roles:write, roles:read, tensions:read (and not users:write: it cannot PUT anyone's roles) */
let editor: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp();
  const res = await login(app, ADMIN.email, ADMIN.password);
  boss = sessionClient(app, res.token!);
  adminRoleId = res.body.roles[0].id;
  editor = client(app, (await seedUserWithKey(app, { grants: ['roles:write', 'roles:read', 'tensions:read'] })).key);
});
afterAll(async () => {
  await app?.close();
});

/** Everything a role edit could change: the role row, what it inherits, and who holds it. */
async function roleState(roleId: string) {
  const em = app.em();
  const [row] = await em.execute('select code, name, permissions, version, updated_at from roles where id = ?', [roleId]);
  const inherits = await em.execute('select inherited_role_id from role_inherits where role_id = ? order by 1', [roleId]);
  const holders = await em.execute('select user_id from user_roles where role_id = ? order by 1', [roleId]);
  return { row, inherits, holders };
}

const UPDATE = 'mutation($id: ID!, $input: UpdateRoleInput!) { updateRole(id: $id, input: $input) { id effectivePermissions } }';
const DELETE = 'mutation($id: ID!) { deleteRole(id: $id) }';

async function role(body: { code: string; permissions: string[]; inherits?: string[] }) {
  const res = await boss.post('/roles', { name: body.code, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

describe('editing a role acts on its holders (SPEC §2)', () => {
  it('the reviewer’s case: a role granting * through inheritance cannot be emptied by a caller without *, on REST or GraphQL; the second admin keeps *', async () => {
    const s = await role({ code: 'via-admin', permissions: [], inherits: [adminRoleId] });
    const second = await boss.post('/users', { email: 'second-admin@test.example', name: 'Second admin', password: 'second-admin-pass-1', roleIds: [s] });
    expect(second.status).toBe(201);
    const before = await roleState(s);
    const rest = await editor.patch(`/roles/${s}`, { inherits: [] });
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ code: 'escalation_denied', status: 403, missingPermissions: ['*'] });
    const gql = await editor.gql(UPDATE, { id: s, input: { inherits: [] } });
    expect(gql.body.errors?.[0]?.extensions).toMatchObject({ code: 'ESCALATION_DENIED', missingPermissions: ['*'] });
    expect(gql.body.data?.updateRole ?? null).toBeNull();
    expect(await roleState(s)).toEqual(before);
    const secondSession = sessionClient(app, (await login(app, 'second-admin@test.example', 'second-admin-pass-1')).token!);
    expect((await secondSession.get('/auth/me')).body.permissions).toContain('users:write');
  });

  it('the reviewer’s second case: stripping a permission the caller does not hold (actors:delete) from a role’s holders → 403', async () => {
    const r = await role({ code: 'cleaners', permissions: ['actors:delete', 'tensions:read'] });
    const before = await roleState(r);
    const rest = await editor.patch(`/roles/${r}`, { permissions: ['tensions:read'] });
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ code: 'escalation_denied', missingPermissions: ['actors:delete'] });
    const gql = await editor.gql(UPDATE, { id: r, input: { permissions: ['tensions:read'] } });
    expect(gql.body.errors?.[0]?.extensions).toMatchObject({ code: 'ESCALATION_DENIED', missingPermissions: ['actors:delete'] });
    expect(await roleState(r)).toEqual(before);
  });

  it('a rename is an edit too: the admin role and a stronger role keep their names; a no-op edit is refused alike', async () => {
    for (const id of [adminRoleId, await role({ code: 'strong-name', permissions: ['users:write'] })]) {
      const before = await roleState(id);
      const rest = await editor.patch(`/roles/${id}`, { name: 'Renamed by a weaker caller' });
      expect(rest.status, id).toBe(403);
      expect(rest.body.code).toBe('escalation_denied');
      expect((await editor.gql(UPDATE, { id, input: { name: 'Renamed by a weaker caller' } })).body.errors?.[0]?.extensions?.code).toBe('ESCALATION_DENIED');
      // Edge: an edit that would change nothing (same name) is still an edit request on a stronger role.
      expect((await editor.patch(`/roles/${id}`, { name: before.row.name })).status).toBe(403);
      expect(await roleState(id)).toEqual(before);
    }
  });

  it('an edit reaches the roles that inherit the edited one: editing S is refused when a role inheriting S carries more than the caller', async () => {
    // S carries only what the caller holds; T inherits S and adds actors:delete; U inherits T (two steps up).
    const s = await role({ code: 'base-s', permissions: ['tensions:read'] });
    const t = await role({ code: 'above-t', permissions: [], inherits: [s] });
    const u = await role({ code: 'above-u', permissions: ['actors:delete'], inherits: [t] });
    const before = [await roleState(s), await roleState(t), await roleState(u)];
    for (const patch of [{ permissions: [] }, { name: 'Base S renamed' }, { permissions: ['tensions:read', 'roles:read'] }]) {
      const rest = await editor.patch(`/roles/${s}`, patch);
      expect(rest.status, JSON.stringify(patch)).toBe(403);
      expect(rest.body).toMatchObject({ code: 'escalation_denied', missingPermissions: ['actors:delete'] });
      expect((await editor.gql(UPDATE, { id: s, input: patch })).body.errors?.[0]?.extensions?.code).toBe('ESCALATION_DENIED');
    }
    expect([await roleState(s), await roleState(t), await roleState(u)]).toEqual(before);
    // Deleting S is refused for the same reason (before role_in_use: a weaker caller learns nothing more).
    expect((await editor.del(`/roles/${s}`)).body.code).toBe('escalation_denied');
    // Control: once U no longer inherits T, S and T are within the caller's reach again.
    expect((await boss.patch(`/roles/${u}`, { inherits: [] })).status).toBe(200);
    const ok = await editor.patch(`/roles/${s}`, { name: 'Base S renamed' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it('after the change counts too: granting a role, directly or through inherits, what the caller lacks → 403, nothing written', async () => {
    const s = await role({ code: 'grows', permissions: ['tensions:read'] });
    const strong = await role({ code: 'strong-parent', permissions: ['users:write'] });
    const before = await roleState(s);
    for (const patch of [{ permissions: ['tensions:read', 'users:write'] }, { inherits: [strong] }, { inherits: [adminRoleId] }]) {
      const rest = await editor.patch(`/roles/${s}`, patch);
      expect(rest.status, JSON.stringify(patch)).toBe(403);
      expect(rest.body.code).toBe('escalation_denied');
    }
    expect(await roleState(s)).toEqual(before);
  });

  it('deleting a role carrying what the caller lacks → 403 on REST and GraphQL, the role stays; held by a stronger user → 403, not 409', async () => {
    const unheld = await role({ code: 'unheld-strong', permissions: ['actors:delete'] });
    const rest = await editor.del(`/roles/${unheld}`);
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ code: 'escalation_denied', missingPermissions: ['actors:delete'] });
    const gql = await editor.gql(DELETE, { id: unheld });
    expect(gql.body.errors?.[0]?.extensions).toMatchObject({ code: 'ESCALATION_DENIED', missingPermissions: ['actors:delete'] });
    expect((await roleState(unheld)).row).toBeDefined();
    const strongUser = await seedUserWithKey(app, { grants: ['tensions:read', 'users:read'] });
    expect((await editor.del(`/roles/${strongUser.roleId}`)).body.code).toBe('escalation_denied');
    // The system role: escalation_denied for a weaker caller; a holder of * still gets system_role.
    expect((await editor.del(`/roles/${adminRoleId}`)).body.code).toBe('escalation_denied');
    expect((await boss.del(`/roles/${adminRoleId}`)).body.code).toBe('system_role');
  });

  it('controls: the same caller edits and deletes roles it covers, including their inheritors; unknown roles stay 404', async () => {
    const s = await role({ code: 'mine-s', permissions: ['tensions:read'] });
    const t = await role({ code: 'mine-t', permissions: ['roles:read'], inherits: [s] });
    const renamed = await editor.patch(`/roles/${s}`, { name: 'Mine, renamed', permissions: [] });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const gql = await editor.gql(UPDATE, { id: t, input: { inherits: [] } });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.updateRole.effectivePermissions).toEqual(['roles:read']);
    expect((await editor.del(`/roles/${t}`)).status).toBe(204);
    expect((await editor.gql(DELETE, { id: s })).body.data?.deleteRole).toBe(true);
    expect((await editor.patch('/roles/00000000-0000-4000-8000-000000000000', { name: 'x' })).body.code).toBe('not_found');
    expect((await editor.del('/roles/not-a-uuid')).status).toBe(404);
  });
});
