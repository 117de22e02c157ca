// The bench's own fresh PostgreSQL database: created from the server URL, dropped at the end.
import pg from 'pg';

export interface BenchDatabase {
  url: string;
  name: string;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
  drop(): Promise<void>;
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** `name`: a fixed name (BENCH_DB_NAME), else `bench_<timestamp>_<pid>`; dropped first if it exists. */
export async function createBenchDatabase(serverUrl: string, fixedName?: string, template?: string): Promise<BenchDatabase> {
  const name = fixedName ?? `bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`;
  for (const n of [name, template ?? name]) if (!/^[a-z_][a-z0-9_]*$/.test(n)) throw new Error(`not a plain database name: ${n}`);
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  if (fixedName) await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  await admin.end();
  const url = withDatabase(serverUrl, name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let closed = false;
  return {
    url,
    name,
    async query(sql, params) {
      return (await client.query(sql, params as unknown[])).rows;
    },
    async close() {
      if (!closed) await client.end();
      closed = true;
    },
    async drop() {
      if (!closed) await client.end();
      closed = true;
      const a = new pg.Client({ connectionString: serverUrl });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}
