// Once per `vitest run`, before any test file: the migrated database every file starts from, and the first
// admin's password hash. Each file used to create a database, run every migration (about 3 s on PostgreSQL,
// 15 s and more on the embedded database, whose initdb runs in WebAssembly) and hash the admin's password
// with argon2 (about 0.5 s of CPU at the library's defaults); now it clones the template (PostgreSQL: `create database … template`;
// embedded: PGlite loads a tarball of a migrated data folder) and bootstraps with the ready hash.
// Tests that deliberately migrate (an empty PostgreSQL database, a data folder on disk) still do.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { hashPassword } from '../../server/auth/password.js';
import { migrate, openDatabase } from '../../server/persistence/database.js';
import pg from 'pg';
import { ADMIN } from './admin.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PostgreSQL: the migrated database each file's database is created from (no one may connect to it) */
    postgresTemplate: string | null;
    /** embedded: a tarball of a migrated data folder (PGlite's dumpDataDir) each file's database loads */
    embeddedTemplate: string | null;
    /** argon2id hash of the test admin's password (at SPEC §1's floor, `PASSWORD_HASHING=floor`), computed once per run */
    adminPasswordHash: string;
    /** this run's part of every per-file PostgreSQL database's name, so the teardown finds what is left */
    runId: string;
  }
}

/** A migrated embedded data folder, as a tarball (embedded-template.ts, in a child process). */
async function embeddedTemplate(): Promise<{ tarball: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'market-test-template-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    const script = new URL('./embedded-template.ts', import.meta.url).pathname;
    const child = spawn(process.execPath, ['--import', 'tsx', script, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4_000)));
    const exit = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (c) => resolve(c));
    });
    const tarball = join(dir, 'migrated.tar');
    if (exit !== 0 || !existsSync(tarball)) throw new Error(`the embedded template was not made (exit ${exit}): ${stderr}`);
    return { tarball, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}

/** One statement on the server's maintenance connection (DATABASE_URL's database). */
async function queryOnce(sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A run's id: its start time (base 36, 8 digits until 2059) and 6 random hex digits. */
const newRunId = () => `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const RUN_DATABASE = /^t_(?:template_)?([0-9a-z]{8})[0-9a-f]{6}(?:_|$)/;

/** Templates and databases of runs killed before their teardown: those started over a day ago (no run lasts that long). */
async function dropAbandoned(): Promise<void> {
  const { rows } = await queryOnce(`select datname from pg_database where datname like 't\\_%'`);
  for (const { datname } of rows as { datname: string }[]) {
    const started = RUN_DATABASE.exec(datname)?.[1];
    if (started && Date.now() - parseInt(started, 36) > 24 * 3600_000)
      await queryOnce(`drop database if exists "${datname}" with (force)`).catch(() => undefined);
  }
}

async function postgresTemplate(runId: string): Promise<{ name: string; drop(): Promise<void> }> {
  await dropAbandoned();
  const name = `t_template_${runId}`;
  await queryOnce(`create database "${name}"`);
  const drop = async () => {
    await queryOnce(`drop database if exists "${name}" with (force)`).catch(() => undefined);
    // The files' databases whose drop their process did not see through (test/support/database.ts).
    const left = await queryOnce(`select datname from pg_database where datname like 't\\_${runId}\\_%'`).catch(() => undefined);
    for (const { datname } of (left?.rows ?? []) as { datname: string }[])
      await queryOnce(`drop database if exists "${datname}" with (force)`).catch(() => undefined);
  };
  try {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    const db = await openDatabase({ databaseUrl: url.toString(), poolMax: 2, create: false });
    try {
      await migrate(db.orm);
    } finally {
      await db.close();
    }
    // `create database … template` fails while anyone is connected to the template: nobody may.
    await queryOnce(`alter database "${name}" with allow_connections false`);
    return { name, drop };
  } catch (err) {
    await drop();
    throw err;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const onPostgres = Boolean(process.env.DATABASE_URL);
  const runId = newRunId();
  const [hash, postgres, embedded] = await Promise.all([
    hashPassword(ADMIN.password, 'floor'),
    onPostgres ? postgresTemplate(runId) : null,
    onPostgres ? null : embeddedTemplate(),
  ]);
  project.provide('adminPasswordHash', hash);
  project.provide('runId', runId);
  project.provide('postgresTemplate', postgres?.name ?? null);
  project.provide('embeddedTemplate', embedded?.tarball ?? null);
  return async () => {
    await postgres?.drop();
    await embedded?.remove();
  };
}
