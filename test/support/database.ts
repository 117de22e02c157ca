// A fresh database per test file: a new PostgreSQL database when DATABASE_URL is set, else an
// in-memory embedded one. Files therefore never see each other's data.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate, openDatabase, type Database } from '../../server/persistence/database.js';

export interface TestDatabase extends Database {
  /** the URL of the fresh PostgreSQL database, when on PostgreSQL */
  url?: string;
}

export const onPostgres = Boolean(process.env.DATABASE_URL);

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(opts: { poolMax?: number } = {}): Promise<TestDatabase> {
  const poolMax = opts.poolMax ?? 10;
  if (!onPostgres) {
    const db = await openDatabase({ poolMax });
    await migrate(db.orm);
    return db;
  }
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database "${name}"`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString(), poolMax });
  await migrate(db.orm);
  return {
    ...db,
    url: url.toString(),
    async close() {
      await db.close();
      await adminQuery(`drop database if exists "${name}" with (force)`).catch(() => undefined);
    },
  };
}
