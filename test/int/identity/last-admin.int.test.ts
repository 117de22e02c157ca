// Issue 17, item 11 (third part): the last active HUMAN holder of `*` cannot lose it by a role change, a role
// edit or deactivation, whatever agents hold `*` (SPEC §2), and not by two admins demoting each other at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { login, sessionClient } from '../../support/sessions.js';

let app: TestApp;
let boss: ReturnType<typeof sessionClient>;
let bossId: string;
let bossRoleIds: string[];
/** agents holding `*`, directly and through the system role: present in every test, never counted */
let robot: SeededUser;
let systemRobotId: string;

beforeAll(async () => {
  app = await startTestApp();
  const res = await login(app, ADMIN.email, ADMIN.password);
  boss = sessionClient(app, res.token!);
  bossId = res.body.id;
  bossRoleIds = res.body.roles.map((r: { id: string }) => r.id);
  robot = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
  const sys = await boss.post('/users', { type: 'agent', email: 'sys-robot@test.example', name: 'Sys robot', roleIds: bossRoleIds });
  expect(sys.status).toBe(201);
  systemRobotId = sys.body.id;
});
afterAll(async () => {
  await app?.close();
});

/** Active humans holding `*` as a direct grant of one of their roles (every `*` holder in the race is one). */
async function humanStarHolders(): Promise<string[]> {
  const rows = await app.em().execute<{ id: string }[]>(
    `select distinct u.id from users u join user_roles ur on ur.user_id = u.id join roles r on r.id = ur.role_id
     where u.type = 'human' and u.status = 'active' and '*' = any(r.permissions) order by u.id`,
  );
  return rows.map((r) => r.id);
}

describe('the last active human admin', () => {
  it('agents holding * do not count: the only human admin can neither drop its roles nor deactivate itself', async () => {
    const strip = await boss.put(`/users/${bossId}/roles`, { roleIds: [] });
    expect(strip.status).toBe(409);
    expect(strip.body.code).toBe('last_admin');
    const gql = await boss.gql('mutation($id: ID!) { setUserRoles(id: $id, roleIds: []) { id } }', { id: bossId });
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('LAST_ADMIN');
    const gone = await boss.del(`/users/${bossId}`);
    expect(gone.status).toBe(409);
    expect(gone.body.code).toBe('last_admin');
    expect((await boss.get('/auth/me')).body.user.roles.map((r: { id: string }) => r.id)).toEqual(bossRoleIds);
  });

  it('holds when * comes through inheritance and the role granting it is edited, and agents may still go', async () => {
    const star = (await boss.post('/roles', { code: 'star', name: 'Star', permissions: ['*'] })).body;
    const ops = (await boss.post('/roles', { code: 'ops', name: 'Ops', permissions: [], inherits: [star.id] })).body;
    const h = await boss.post('/users', { email: 'ops-lead@test.example', name: 'Ops lead', password: 'ops-lead-password-1', roleIds: [ops.id] });
    expect(h.status).toBe(201);
    const lead = sessionClient(app, (await login(app, 'ops-lead@test.example', 'ops-lead-password-1')).token!);
    // Two human admins: the first may step down. Then the ops lead is the last one.
    expect((await boss.put(`/users/${bossId}/roles`, { roleIds: [] })).status).toBe(200);

    const refusals = [
      await lead.patch(`/roles/${ops.id}`, { inherits: [] }),
      await lead.patch(`/roles/${star.id}`, { permissions: ['users:read'] }),
      await lead.put(`/users/${h.body.id}/roles`, { roleIds: [] }),
      await lead.del(`/users/${h.body.id}`),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('last_admin');
    }
    const edit = await lead.gql('mutation($id: ID!) { updateRole(id: $id, input: {inherits: []}) { id } }', { id: ops.id });
    expect(edit.body.errors?.[0]?.extensions?.code).toBe('LAST_ADMIN');
    expect((await lead.get('/auth/me')).body.permissions).toContain('roles:write');
    // Agents holding * are not protected: the last human admin may deactivate them.
    expect((await lead.del(`/users/${systemRobotId}`)).status).toBe(204);
    // Give the boss back its roles for the race below.
    expect((await lead.put(`/users/${bossId}/roles`, { roleIds: bossRoleIds })).status).toBe(200);
  });

  it('two admins demoting (or deactivating) each other at once: exactly one succeeds, one human admin remains', async () => {
    // Every human `*` holder but one fresh incumbent goes first; the agent `robot` keeps holding `*` throughout.
    let incumbent = await seedUserWithKey(app, { type: 'human', grants: ['*'] });
    const inc = client(app, incumbent.key);
    for (const id of (await humanStarHolders()).filter((id) => id !== incumbent.userId)) {
      expect((await inc.del(`/users/${id}`)).status).toBe(204);
    }
    const opsLead = (await inc.get('/users?q=ops-lead')).body.data[0];
    if (opsLead.status === 'active') expect((await inc.del(`/users/${opsLead.id}`)).status).toBe(204);
    expect(await humanStarHolders()).toEqual([incumbent.userId]);
    expect((await client(app, robot.key).get('/auth/me')).status).toBe(200);

    const ROUNDS = 8;
    for (let round = 0; round < ROUNDS; round++) {
      const rival = await seedUserWithKey(app, { type: 'human', grants: ['*'] });
      const a = client(app, incumbent.key);
      const b = client(app, rival.key);
      const byRoles = round % 2 === 0;
      const [ra, rb] = await Promise.all(
        byRoles
          ? [a.put(`/users/${rival.userId}/roles`, { roleIds: [] }), b.put(`/users/${incumbent.userId}/roles`, { roleIds: [] })]
          : [a.del(`/users/${rival.userId}`), b.del(`/users/${incumbent.userId}`)],
      );
      const statuses = [ra.status, rb.status];
      const won = statuses.filter((s) => s < 300);
      expect(won, `round ${round} (${byRoles ? 'roles' : 'deactivation'}): ${JSON.stringify([ra.body, rb.body])}`).toHaveLength(1);
      // The loser either lost the race under the lock (409 last_admin), or arrived after its own demotion
      // or deactivation had committed (403 forbidden / 401): never a second success, never a 5xx.
      const loser = ra.status < 300 ? rb : ra;
      expect([401, 403, 409]).toContain(loser.status);
      if (loser.status === 409) expect(loser.body.code).toBe('last_admin');
      const survivor = ra.status < 300 ? incumbent : rival;
      expect(await humanStarHolders()).toEqual([survivor.userId]);
      incumbent = survivor;
    }
  });
});
