// Running it in production (SPEC §9): the command line refuses what it does not understand, migrations
// run once under a database-wide lock, MIGRATE_ON_START=false waits for them, and SIGTERM drains.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, emptyPostgresDatabase, onPostgres, queryOnce, type TestDatabase } from '../../support/database.js';
import { startServerProcess } from '../../support/process.js';
import { freePort, runCli, spawnCli } from '../../support/process.js';

const ADMIN = { ADMIN_EMAIL: 'ops@test.example', ADMIN_PASSWORD: 'ops-password-1234', SESSION_SECRET: 'ops-test-secret-that-is-long-enough-0123456789' };

describe('the command line', () => {
  it.each([[['bogus']], [['migrate', 'down']], [['migrate', '--force']], [['start', '--port', '1']], [[]]])(
    'refuses %j with the usage and exit code 2, before touching any database',
    async (args) => {
      // DATABASE_URL points nowhere: a refusal that tried to connect would fail differently.
      const run = await runCli(args, { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/Usage: market-service <command>/);
      expect(run.stderr).not.toMatch(/ECONNREFUSED/);
    },
    60_000,
  );

  it('prints the usage for --help and exits 0', async () => {
    const run = await runCli(['--help'], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/migrate status/);
  }, 60_000);
});

describe.skipIf(!onPostgres)('migrations on PostgreSQL', () => {
  let empty: Awaited<ReturnType<typeof emptyPostgresDatabase>>;
  beforeAll(async () => {
    empty = await emptyPostgresDatabase();
  });
  afterAll(async () => {
    await empty?.drop();
  });

  it('`migrate status` lists what is pending and changes nothing', async () => {
    const run = await runCli(['migrate', 'status'], { DATABASE_URL: empty.url });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^pending\s+Migration\w+$/m);
    expect(run.stdout).toMatch(/^0 applied, [1-9]\d* pending$/m);
    const { rows } = await empty.query(`select to_regclass('domain_events') is null as absent`);
    expect(rows[0].absent).toBe(true);
  }, 60_000);

  it('six instances migrating one fresh database at once all succeed, and each migration runs once', async () => {
    const runs = await Promise.all(Array.from({ length: 6 }, () => runCli(['migrate'], { DATABASE_URL: empty.url })));
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const { rows } = await empty.query('select name, count(*)::int as n from mikro_orm_migrations group by name');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    const status = await runCli(['migrate', 'status'], { DATABASE_URL: empty.url });
    expect(status.stdout).toMatch(new RegExp(`^${rows.length} applied, 0 pending$`, 'm'));
  }, 180_000);
});

describe.skipIf(!onPostgres)('MIGRATE_ON_START=false', () => {
  it('starts unmigrated with /readyz 503 until `market-service migrate` runs, then is ready with its admin', async () => {
    const empty = await emptyPostgresDatabase();
    const port = await freePort();
    const env = { ...ADMIN, DATABASE_URL: empty.url, MIGRATE_ON_START: 'false', PORT: String(port) };
    const server = spawnCli(['start'], env);
    let output = '';
    server.stdout!.on('data', (d) => (output += d));
    server.stderr!.on('data', (d) => (output += d));
    const url = `http://127.0.0.1:${port}`;
    const readyz = async () =>
      fetch(`${url}/readyz`)
        .then(async (r) => ({ status: r.status, body: await r.json() }))
        .catch(() => null);
    try {
      let first = await readyz();
      for (let i = 0; !first && i < 1200 && server.exitCode === null; i++) {
        await new Promise((r) => setTimeout(r, 100));
        first = await readyz();
      }
      expect(first, output).toEqual({ status: 503, body: { status: 'migrations_pending' } });
      const { rows } = await empty.query(`select to_regclass('domain_events') is null as absent`);
      expect(rows[0].absent).toBe(true);

      expect((await runCli(['migrate'], { DATABASE_URL: empty.url })).code).toBe(0);
      const ready = await readyz();
      expect(ready).toEqual({ status: 200, body: { status: 'ready' } });
      const login = await fetch(`${url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD }),
      });
      expect(login.status).toBe(200);
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
      await empty.drop();
    }
  }, 180_000);
});

describe('SIGTERM', () => {
  let db: TestDatabase | undefined;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'market-ops-'));
    if (onPostgres) db = await createTestDatabase({ poolMax: 1 });
  });
  afterAll(async () => {
    await db?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('turns /readyz 503 at once, serves through the grace period, finishes every request started before it, exits 0', async () => {
    // The library's argon2 cost (not the suite's floor), so that the logins below are still running at the signal.
    const env = { ...ADMIN, DATA_DIR: dataDir, SHUTDOWN_GRACE_MS: '1500', PASSWORD_HASHING: 'standard', ...(db ? { DATABASE_URL: db.url! } : {}) };
    const server = await startServerProcess(env);
    const login = () =>
      fetch(`${server.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD }),
      }).then(
        (r) => r.status,
        (err: Error) => `failed: ${err.message}`,
      );

    // Logins cost an argon2 verify each (~0.1 s, one core): 8 at once are still running at the signal (the login throttle evaluates at most 10 at once for one email).
    const inFlight = Array.from({ length: 8 }, login);
    await new Promise((r) => setTimeout(r, 50));
    const exit = server.stop();

    // The signal is delivered asynchronously; once handled, /readyz answers 503 for the whole grace period.
    let duringGrace = await fetch(`${server.url}/readyz`);
    for (let i = 0; duringGrace.status === 200 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 20));
      duringGrace = await fetch(`${server.url}/readyz`);
    }
    expect(duringGrace.status).toBe(503);
    expect(await duringGrace.json()).toEqual({ status: 'stopping' });
    expect(duringGrace.headers.get('connection')).toBe('close');
    // Still served: the load balancer has not yet seen the 503.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(await login()).toBe(200);

    expect(await Promise.all(inFlight)).toEqual(Array(8).fill(200));
    expect(await exit).toBe(0);
    expect(server.output()).not.toMatch(/shutdown failed/);
  }, 200_000);
});

describe.skipIf(!onPostgres)('the service as a narrower database role (scripts/app-role.sql)', () => {
  it('serves every write while the database refuses it any UPDATE, DELETE or trigger change on domain_events and audit_log', async () => {
    const empty = await emptyPostgresDatabase();
    const role = `app_${Date.now().toString(36)}`;
    const appUrl = new URL(empty.url);
    appUrl.username = role;
    appUrl.password = 'app-role-password';
    try {
      expect((await runCli(['migrate'], { DATABASE_URL: empty.url })).code).toBe(0);
      const { execFileSync } = await import('node:child_process');
      execFileSync('psql', ['-q', empty.url, '-v', `app_role=${role}`, '-v', "app_password='app-role-password'", '-f', 'scripts/app-role.sql']);

      const server = await startServerProcess({ ...ADMIN, DATABASE_URL: appUrl.toString(), MIGRATE_ON_START: 'false' });
      try {
        const login = await fetch(`${server.url}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD }),
        });
        expect(login.status).toBe(200);
        const cookie = login.headers.get('set-cookie')!.split(';')[0];
        const post = (path: string, body: unknown) =>
          fetch(`${server.url}/api/v1${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', cookie, 'x-csrf-protection': '1' },
            body: JSON.stringify(body),
          });
        const actor = await post('/actors', { name: 'Org', type: 'organization' });
        expect(actor.status).toBe(201);
        const sensed = await post('/tensions', { name: 'T', actorId: (await actor.json()).id });
        expect(sensed.status).toBe(201);
        expect((await post(`/tensions/${(await sensed.json()).tension.id}/rescore`, { score: 9 })).status).toBe(200);
      } finally {
        expect(await server.stop()).toBe(0);
      }

      const pg = (await import('pg')).default;
      const asApp = new pg.Client({ connectionString: appUrl.toString() });
      await asApp.connect();
      try {
        for (const sql of [
          `update domain_events set type = 'Forged'`,
          'delete from domain_events',
          'truncate domain_events',
          'alter table domain_events disable trigger user',
          'drop trigger domain_events_no_update_delete on domain_events',
          `update audit_log set action = 'user.created'`,
          'delete from audit_log',
          'truncate audit_log',
          'alter table audit_log disable trigger user',
        ]) {
          await expect(asApp.query(sql), sql).rejects.toMatchObject({ code: '42501' });
        }
        const { rows } = await asApp.query('select count(*)::int as n from domain_events');
        expect(rows[0].n).toBe(2);
        // The first admin, the login and the actor were recorded, by the same narrower role.
        const audit = await asApp.query('select action from audit_log order by at');
        expect(audit.rows.map((r) => r.action)).toEqual(['user.created', 'auth.login', 'actor.created']);
      } finally {
        await asApp.end();
      }
    } finally {
      await empty.drop();
      // Roles belong to the cluster, not the database.
      await queryOnce(`drop role if exists "${role}"`);
    }
  }, 240_000);
});

describe('housekeeping', () => {
  it('deletes revoked and expired sessions and login attempts past the throttle window, and nothing still in force', async () => {
    const { startTestApp, ADMIN: TEST_ADMIN } = await import('../../support/app.js');
    const { deleteExpired } = await import('../../../server/persistence/housekeeping.js');
    const { LOGIN_WINDOW_MS } = await import('../../../server/application/auth/throttle.js');
    const app = await startTestApp();
    try {
      const login = (password: string) =>
        fetch(`${app.url}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: TEST_ADMIN.email, password }),
        });
      const kept = (await login(TEST_ADMIN.password)).headers.get('set-cookie')!.split(';')[0];
      const ended = (await login(TEST_ADMIN.password)).headers.get('set-cookie')!.split(';')[0];
      expect((await fetch(`${app.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie: ended, 'x-csrf-protection': '1' } })).status).toBe(204);
      expect((await login('wrong-password-123')).status).toBe(401);

      const now = new Date();
      expect(await deleteExpired(app.em(), now, LOGIN_WINDOW_MS)).toEqual({ sessions: 1, loginAttempts: 0, idempotencyKeys: 0 });
      expect((await fetch(`${app.url}/api/v1/auth/me`, { headers: { cookie: kept } })).status).toBe(200);

      expect(await deleteExpired(app.em(), new Date(now.getTime() + LOGIN_WINDOW_MS + 1000), LOGIN_WINDOW_MS)).toEqual({
        sessions: 0,
        loginAttempts: 1,
        idempotencyKeys: 0,
      });
      const afterTtl = new Date(now.getTime() + app.deps.config.sessionTtlMs + 1000);
      expect(await deleteExpired(app.em(), afterTtl, LOGIN_WINDOW_MS)).toEqual({ sessions: 1, loginAttempts: 0, idempotencyKeys: 0 });
      const [{ n }] = await app.em().execute('select count(*)::int as n from sessions');
      expect(n).toBe(0);
    } finally {
      await app.close();
    }
  }, 60_000);
});

describe.skipIf(!onPostgres)('statement and lock timeouts', () => {
  it('a transaction stuck holding a lock stalls no request past DB_LOCK_TIMEOUT_MS, and the answer leaks nothing', async () => {
    const db = await createTestDatabase({ poolMax: 2 });
    const server = await startServerProcess({ ...ADMIN, DATABASE_URL: db.url!, DB_LOCK_TIMEOUT_MS: '300' });
    const pg = (await import('pg')).default;
    const stuck = new pg.Client({ connectionString: db.url! });
    await stuck.connect();
    try {
      const login = await fetch(`${server.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD }),
      });
      const cookie = login.headers.get('set-cookie')!.split(';')[0];
      await stuck.query('begin');
      await stuck.query('lock table tensions in access exclusive mode');
      // Without a lock timeout this read waits for the stuck transaction for ever (the test would time out).
      const res = await fetch(`${server.url}/api/v1/tensions`, { headers: { cookie } });
      // Not a bug: the database cannot serve this now (SPEC §7), so 503 unavailable with Retry-After.
      expect(res.status).toBe(503);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ code: 'unavailable', requestId: expect.any(String) });
      expect(text).not.toMatch(/lock|select|tensions|timeout/i);
      await stuck.query('rollback');
      expect((await fetch(`${server.url}/api/v1/tensions`, { headers: { cookie } })).status).toBe(200);
    } finally {
      await stuck.end();
      await server.stop();
      await db.close();
    }
  }, 180_000);
});

describe('subcommands parse strictly too', () => {
  it.each([
    [['users', 'create-admin', '--email', 'a@test.example', '--bogus']],
    [['users', 'create-admin', 'extra', '--email', 'a@test.example']],
    [['users', 'remove-admin']],
    [['projections', 'rebuild', '--dry-run=yes']],
    [['projections', 'rebuild', 'now']],
  ])(
    'refuses %j with the usage and exit code 2',
    async (args) => {
      const run = await runCli(args, { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/Usage: market-service (users create-admin|projections rebuild)/);
    },
    60_000,
  );
});

describe('market-service mcp never creates or migrates a database (SPEC §8)', () => {
  it('refuses a missing data folder and an unmigrated PostgreSQL database with a clear message, creating nothing', async () => {
    const missing = join(tmpdir(), `market-none-${Date.now()}`);
    const embedded = await runCli(['mcp'], { DATA_DIR: missing, MARKET_API_KEY: 'mk_whatever' });
    expect(embedded.code).toBe(1);
    expect(embedded.stderr).toMatch(/no database in/);
    const { existsSync } = await import('node:fs');
    expect(existsSync(missing)).toBe(false);
    expect((await runCli(['mcp', '--port', '1'], { DATA_DIR: missing, MARKET_API_KEY: 'mk_whatever' })).code).toBe(2);
    if (!onPostgres) return;
    const empty = await emptyPostgresDatabase();
    try {
      const run = await runCli(['mcp'], { DATABASE_URL: empty.url, MARKET_API_KEY: 'mk_whatever' });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/not migrated/);
      const { rows } = await empty.query(`select to_regclass('mikro_orm_migrations') is null as absent`);
      expect(rows[0].absent).toBe(true);
    } finally {
      await empty.drop();
    }
  }, 120_000);

  it.skipIf(!onPostgres)(
    'refuses a PostgreSQL database that does not exist without creating it, and creates no data folder',
    async () => {
      const name = `market_no_such_db_${Date.now()}`;
      const url = new URL(process.env.DATABASE_URL!);
      url.pathname = `/${name}`;
      const missingDir = join(tmpdir(), `market-none-${Date.now()}`);
      const run = await runCli(['mcp'], { DATABASE_URL: url.toString(), DATA_DIR: missingDir, MARKET_API_KEY: 'mk_whatever' });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/does not exist/);
      const { rows } = await queryOnce(`select count(*)::int as n from pg_database where datname = '${name}'`);
      expect(rows[0].n).toBe(0);

      // a migrated database but no SESSION_SECRET: the key is checked, and still no folder appears
      const { startTestApp } = await import('../../support/app.js');
      const app = await startTestApp();
      try {
        const unknownKey = await runCli(['mcp'], { DATABASE_URL: app.db.url!, DATA_DIR: missingDir, MARKET_API_KEY: 'mk_whatever' });
        expect(unknownKey.code).toBe(2);
        expect(unknownKey.stderr).toMatch(/API key/);
      } finally {
        await app.close();
      }
      const { existsSync } = await import('node:fs');
      expect(existsSync(missingDir)).toBe(false);
    },
    120_000,
  );
});

describe('DB_ACQUIRE_TIMEOUT_MS', () => {
  it('defaults to the 5 s of SPEC §7, takes 1 ms to 10 minutes, and is reported with the other problems', async () => {
    const { loadConfig } = await import('../../../server/config.js');
    expect(loadConfig({}).dbAcquireTimeoutMs).toBe(5_000);
    expect(loadConfig({ DB_ACQUIRE_TIMEOUT_MS: '1' }).dbAcquireTimeoutMs).toBe(1);
    expect(loadConfig({ DB_ACQUIRE_TIMEOUT_MS: '600000' }).dbAcquireTimeoutMs).toBe(600_000);
    for (const bad of ['0', '-5', '600001', '1.5', 'soon']) {
      expect(() => loadConfig({ DB_ACQUIRE_TIMEOUT_MS: bad }), bad).toThrow(/DB_ACQUIRE_TIMEOUT_MS/);
    }
  });
});

describe('the operations settings', () => {
  it('are read and checked with every other setting, each problem reported at once', async () => {
    const { loadConfig } = await import('../../../server/config.js');
    const c = loadConfig({
      MIGRATE_ON_START: 'false',
      SHUTDOWN_GRACE_MS: '2500',
      DB_STATEMENT_TIMEOUT_MS: '0',
      DB_LOCK_TIMEOUT_MS: '750',
      METRICS: 'false',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_TRACES_EXPORTER: 'none',
      DB_PREPARED_STATEMENTS: 'false',
    });
    expect(c).toMatchObject({
      migrateOnStart: false,
      shutdownGraceMs: 2500,
      dbStatementTimeoutMs: 0,
      dbLockTimeoutMs: 750,
      metrics: false,
      otlpEndpoint: 'http://collector:4318',
      tracesExporter: 'none',
      dbPreparedStatements: false,
    });
    expect(loadConfig({}).dbPreparedStatements).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32) }).shutdownGraceMs).toBe(10_000);
    expect(loadConfig({}).shutdownGraceMs).toBe(0);
    let problems = '';
    try {
      loadConfig({
        MIGRATE_ON_START: 'no',
        SHUTDOWN_GRACE_MS: '-1',
        DB_STATEMENT_TIMEOUT_MS: 'soon',
        DB_LOCK_TIMEOUT_MS: '99999999',
        METRICS_TOKEN: 'short',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'collector',
        OTEL_TRACES_EXPORTER: 'zipkin',
        DB_PREPARED_STATEMENTS: 'yes',
      });
    } catch (err) {
      problems = (err as Error).message;
    }
    for (const name of [
      'MIGRATE_ON_START',
      'SHUTDOWN_GRACE_MS',
      'DB_STATEMENT_TIMEOUT_MS',
      'DB_LOCK_TIMEOUT_MS',
      'METRICS_TOKEN',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_TRACES_EXPORTER',
      'DB_PREPARED_STATEMENTS',
    ]) {
      expect(problems).toContain(name);
    }
  });
});
