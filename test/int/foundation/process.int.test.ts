import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, onPostgres, type TestDatabase } from '../../support/database.js';
import { runCli, startServerProcess } from '../../support/process.js';
import { startTestApp } from '../../support/app.js';
import { login } from '../../support/sessions.js';
import { client } from '../../support/clients.js';
import { openDatabase, type Database } from '../../../server/persistence/database.js';
import pg from 'pg';

let db: TestDatabase | undefined;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'market-proc-'));
  if (onPostgres) {
    db = await createTestDatabase({ poolMax: 1 });
    env = { DATABASE_URL: db.url!, DATA_DIR: dataDir };
  } else {
    env = { DATA_DIR: dataDir };
  }
});
afterAll(async () => {
  await db?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the market-service process', () => {
  it('starts, migrates, creates the first admin once, and shuts down cleanly on SIGTERM', async () => {
    const first = await startServerProcess({ ...env, ADMIN_EMAIL: 'boss@test.example' });
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    expect(first.output()).toMatch(/email:\s+boss@test\.example/);
    expect(first.output()).toMatch(/password:\s+\S{20,}/);
    expect(await first.stop()).toBe(0);

    const second = await startServerProcess(env);
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    expect(second.output()).not.toMatch(/password:/);
    expect(await second.stop()).toBe(0);
  }, 320_000);

  it('reports every configuration problem at once and exits non-zero', async () => {
    const run = await runCli(['start'], { ...env, PORT: 'not-a-port', DATABASE_URL: 'mysql://nope', NODE_ENV: 'production', LOG_BUFFER_MS: '-1' }, 90_000);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/PORT[\s\S]*DATABASE_URL[\s\S]*LOG_BUFFER_MS[\s\S]*SESSION_SECRET/);
  }, 120_000);

  it('writes its log in batches: a line is out within LOG_BUFFER_MS, and every line by the time it exits', async () => {
    const accessLine = (output: string, requestId: string) =>
      output.split('\n').some((l) => l.includes(`"requestId":"${requestId}"`) && l.includes('"msg":"request"'));
    const ask = (url: string, requestId: string) => fetch(`${url}/api/v1/tensions`, { headers: { 'x-request-id': requestId } });

    // a short wait: the line is written by the timer, with no more lines after it to fill the buffer
    const quick = await startServerProcess({ ...env, LOG_LEVEL: 'info', LOG_BUFFER_MS: '200' });
    try {
      expect((await ask(quick.url, 'log-batch-timer')).status).toBe(401);
      const deadline = Date.now() + 10_000;
      while (!accessLine(quick.output(), 'log-batch-timer') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(accessLine(quick.output(), 'log-batch-timer'), quick.output()).toBe(true);
    } finally {
      expect(await quick.stop()).toBe(0);
    }

    // the longest wait: what is still in memory at SIGTERM is written before the process exits
    const slow = await startServerProcess({ ...env, LOG_LEVEL: 'info', LOG_BUFFER_MS: '10000' });
    for (const id of ['log-batch-exit-1', 'log-batch-exit-2']) expect((await ask(slow.url, id)).status).toBe(401);
    expect(await slow.stop()).toBe(0);
    expect(accessLine(slow.output(), 'log-batch-exit-1')).toBe(true);
    expect(accessLine(slow.output(), 'log-batch-exit-2')).toBe(true);
    expect(slow.output()).toMatch(/"msg":"shutting down"/);
  }, 320_000);
});

/** A database no one has migrated: a new PostgreSQL database, or an empty data folder. */
async function emptyDatabase(): Promise<{ env: Record<string, string>; open(): Promise<Database>; drop(): Promise<void> }> {
  const folder = await mkdtemp(join(tmpdir(), 'market-cli-'));
  if (!onPostgres) {
    return {
      env: { DATA_DIR: folder },
      open: () => openDatabase({ dataDir: folder, poolMax: 2 }),
      drop: () => rm(folder, { recursive: true, force: true }),
    };
  }
  const name = `t_cli_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await c.connect();
    await c.query(sql).finally(() => c.end());
  };
  await admin(`create database "${name}"`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: folder },
    open: () => openDatabase({ databaseUrl: url.toString(), poolMax: 2 }),
    drop: async () => {
      await admin(`drop database if exists "${name}" with (force)`);
      await rm(folder, { recursive: true, force: true });
    },
  };
}

describe('the market-service CLI, run as processes', () => {
  it('`migrate` applies every shipped migration to an empty database, then finds nothing to do', async () => {
    const shipped = (await readdir('migrations')).filter((f) => /^Migration\w+\.ts$/.test(f)).length;
    const target = await emptyDatabase();
    try {
      const first = await runCli(['migrate'], target.env);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain('Database is up to date.');
      const second = await runCli(['migrate'], target.env);
      expect(second.code, second.stderr).toBe(0);
      const db = await target.open();
      try {
        const [{ n }] = await db.orm.em.fork().execute('select count(*)::int as n from mikro_orm_migrations');
        expect(n).toBe(shipped);
        const [{ tensions }] = await db.orm.em.fork().execute(`select to_regclass('tensions') is not null as tensions`);
        expect(tensions).toBe(true);
      } finally {
        await db.close();
      }
    } finally {
      await target.drop();
    }
  }, 180_000);

  it('`users create-admin` makes a human who signs in with the printed password and holds the system role `admin`; a taken email exits 1', async () => {
    const target = await emptyDatabase();
    try {
      const created = await runCli(['users', 'create-admin', '--email', 'Night.Admin@Test.Example', '--name', 'Night admin'], target.env);
      expect(created.code, created.stderr).toBe(0);
      const password = /password:\s+(\S+)/.exec(created.stdout)?.[1];
      expect(password, created.stdout).toMatch(/^\S{20,}$/);
      const again = await runCli(['users', 'create-admin', '--email', 'night.admin@test.example'], target.env);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('exists already');
      const bad = await runCli(['users', 'create-admin', '--email', 'not-an-email'], target.env);
      expect(bad.code).toBe(2);

      // The admin it made, through the API of a server on that database.
      const app = await startTestApp({}, {}, await target.open());
      try {
        const session = await login(app, 'night.admin@test.example', password!);
        expect(session.status).toBe(200);
        const me = await client(app, undefined, { cookie: `session=${session.token}` }).get('/auth/me');
        expect(me.body).toMatchObject({
          user: { email: 'night.admin@test.example', name: 'Night admin', type: 'human' },
          roles: [expect.objectContaining({ code: 'admin', system: true })],
        });
        expect(me.body.permissions).toEqual(expect.arrayContaining(['users:write', 'roles:write', 'projections:rebuild']));
      } finally {
        await app.close();
      }
    } finally {
      await target.drop();
    }
  }, 180_000);
});
