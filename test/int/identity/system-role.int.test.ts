// Issue 17, item 8: the system role's code is immutable (SPEC §2), so `users create-admin`, which finds the
// role it grants, keeps working after someone tries to rename it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../../support/database.js';
import { login, sessionClient } from '../../support/sessions.js';
import { migrate, openDatabase } from '../../../server/persistence/database.js';
import { loadConfig } from '../../../server/config.js';
import { createLogger } from '../../../server/logger.js';
import { runUsers } from '../../../server/cli/users.command.js';

// The CLI opens the database itself: a PostgreSQL URL, or (embedded) a data folder, which only one process
// may hold at a time, so on the embedded database the app is stopped while the command runs.
let dataDir: string;
let db: TestDatabase;
let app: TestApp;
const openDb = async (): Promise<TestDatabase> => {
  if (onPostgres) return db ?? createTestDatabase();
  const opened = await openDatabase({ dataDir, poolMax: 4 });
  await migrate(opened.orm);
  return opened;
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'market-sysrole-'));
  db = await openDb();
  app = await startTestApp({}, {}, db);
});
afterAll(async () => {
  await app?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const NEW_ADMIN = { email: 'second-admin@test.example', password: 'second-admin-password-1' };

async function createAdminCli(): Promise<number> {
  const env = { ADMIN_PASSWORD: NEW_ADMIN.password, ...(onPostgres ? { DATABASE_URL: db.url! } : { DATA_DIR: dataDir }) };
  return runUsers(['create-admin', '--email', NEW_ADMIN.email], { config: loadConfig(env), logger: createLogger('silent') });
}

describe('the system role', () => {
  it('keeps its code on every face (409 system_role), and users create-admin still works afterwards', async () => {
    const signedIn = await login(app, ADMIN.email, ADMIN.password);
    const admin = sessionClient(app, signedIn.token!);
    const roleId = signedIn.body.roles.find((r: { system: boolean }) => r.system).id;

    const rest = await admin.patch(`/roles/${roleId}`, { code: 'root' });
    expect(rest.status).toBe(409);
    expect(rest.body.code).toBe('system_role');
    const gql = await admin.gql('mutation($id: ID!) { updateRole(id: $id, input: {code: "root"}) { code } }', { id: roleId });
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('SYSTEM_ROLE');
    // Resending its own code, or renaming it, is no change of code.
    expect((await admin.patch(`/roles/${roleId}`, { code: 'admin', name: 'Administrators' })).status).toBe(200);
    expect((await admin.get(`/roles/${roleId}`)).body).toMatchObject({ code: 'admin', name: 'Administrators', system: true });

    if (!onPostgres) await app.close();
    expect(await createAdminCli()).toBe(0);
    if (!onPostgres) {
      db = await openDb();
      app = await startTestApp({}, {}, db);
    }
    const second = await login(app, NEW_ADMIN.email, NEW_ADMIN.password);
    expect(second.status).toBe(200);
    expect(second.body.roles).toMatchObject([{ id: roleId, code: 'admin', system: true }]);
    // Accounted for in the audit trail (SPEC §11) like the first admin, by the system through the CLI.
    const created = await app
      .em()
      .execute(`select by_kind, via, target_id, target_label from audit_log where action = 'user.created' and by_kind = 'system' order by at`);
    expect(created).toEqual([
      { by_kind: 'system', via: 'cli', target_id: signedIn.body.id, target_label: ADMIN.email },
      { by_kind: 'system', via: 'cli', target_id: second.body.id, target_label: NEW_ADMIN.email },
    ]);
    const me = await sessionClient(app, second.token!).get('/auth/me');
    expect(me.body.permissions).toContain('roles:write');
  });
});
