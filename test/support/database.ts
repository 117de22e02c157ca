// A fresh database per test file: a new PostgreSQL database when DATABASE_URL is set, else an
// in-memory embedded one. Files therefore never see each other's data. Both start as a copy of the
// migrated template global-setup.ts made for the run (when there is one), so a file does not migrate; an
// embedded one may be an earlier file's, put back as the template left it (embedded-pool.ts).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { migrate, openDatabase, type Database, type DatabaseTimeouts } from '../../server/persistence/database.js';
import { startEmbedded } from '../../server/persistence/embedded.js';
import { pooledEmbedded } from './embedded-pool.js';

export interface TestDatabase extends Database {
  /** the URL of the fresh PostgreSQL database, when on PostgreSQL */
  url?: string;
}

export const onPostgres = Boolean(process.env.DATABASE_URL);

/** One statement on its own connection to `url` (default: DATABASE_URL's database, for admin work). */
export async function queryOnce(sql: string, url = process.env.DATABASE_URL): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

const adminQuery = (sql: string) => queryOnce(sql);

/** A new database beside DATABASE_URL's (a copy of `template`, when named): its name and URL. */
async function newPostgresDatabase(prefix: string, template?: string | null): Promise<{ name: string; url: string }> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await adminQuery(template ? `create database "${name}" template "${template}"` : `create database "${name}"`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

/** A new, empty (unmigrated) PostgreSQL database, for tests of what migrates it; `drop` removes it. */
export async function emptyPostgresDatabase(): Promise<{ url: string; query: (sql: string) => Promise<pg.QueryResult>; drop(): Promise<void> }> {
  const { name, url } = await newPostgresDatabase('t_empty');
  return {
    url,
    query: (sql) => queryOnce(sql, url),
    drop: async () => void (await adminQuery(`drop database if exists "${name}" with (force)`)),
  };
}

export async function createTestDatabase(
  opts: { poolMax?: number; preparedStatements?: boolean; timeouts?: DatabaseTimeouts; acquireTimeoutMs?: number } = {},
): Promise<TestDatabase> {
  const poolMax = opts.poolMax ?? 10;
  const limits = { timeouts: opts.timeouts, acquireTimeoutMs: opts.acquireTimeoutMs };
  // Without a template (none made, or made before a migration was added), `migrate` does the work; with one, it finds nothing pending.
  if (!onPostgres) {
    const loadDataDir = inject('embeddedTemplate') ?? undefined;
    const maxConnections = poolMax + 2;
    const boot = () => startEmbedded({ maxConnections, loadDataDir });
    // from the template: one this worker's earlier file closed, reset (embedded-pool.ts), or a new one
    const embedded = loadDataDir ? pooledEmbedded(maxConnections, boot) : boot();
    const db = await openDatabase({ poolMax, ...limits, embedded });
    await migrate(db.orm);
    return db;
  }
  const { name, url } = await newPostgresDatabase(`t_${inject('runId')}`, inject('postgresTemplate'));
  const db = await openDatabase({ databaseUrl: url, poolMax, preparedStatements: opts.preparedStatements, ...limits });
  await migrate(db.orm);
  return {
    ...db,
    url,
    async close() {
      await db.close();
      // Not waited for: a drop waits for a checkpoint, up to seconds on a busy server. What the file's process
      // does not finish, global-setup.ts's teardown drops by the run's prefix.
      void adminQuery(`drop database if exists "${name}" with (force)`).catch(() => undefined);
    },
  };
}
