// The bench's own fresh PostgreSQL database: created from the server URL, dropped at the end.
import pg from 'pg';

export interface BenchDatabase {
  url: string;
  name: string;
  /** On the bench's own connection, opened on first use (again after close()). */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Ends the bench's connection (a database copied as a template must have none). */
  close(): Promise<void>;
  drop(): Promise<void>;
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `name`: a fixed name (BENCH_DB_NAME), else `bench_<timestamp>_<pid>`; dropped first if it exists.
 * `template`: a database copied file by file (a checkpoint and a copy, not gigabytes of WAL as PostgreSQL 15's
 * default strategy would write); it must have no connection, and a process that just exited may still hold
 * one for a moment, so the copy is tried again for a few seconds.
 */
export async function createBenchDatabase(serverUrl: string, fixedName?: string, template?: string): Promise<BenchDatabase> {
  const name = fixedName ?? `bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`;
  // at most 63 characters: PostgreSQL would cut a longer name short, and this URL would name another database
  for (const n of [name, template ?? name]) if (!/^[a-z_][a-z0-9_]{0,62}$/.test(n)) throw new Error(`not a plain database name of at most 63 characters: ${n}`);
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    if (fixedName) await admin.query(`drop database if exists ${name} with (force)`);
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`create database ${name}${template ? ` template ${template} strategy file_copy` : ''}`);
        break;
      } catch (err) {
        // 55006 object_in_use: "source database … is being accessed by other users"
        if ((err as { code?: string }).code !== '55006' || attempt >= 20) throw err;
        await sleep(500);
      }
    }
  } finally {
    await admin.end();
  }
  const url = withDatabase(serverUrl, name);
  let client: pg.Client | null = null;
  const connected = async () => {
    if (!client) {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      client = c;
    }
    return client;
  };
  const close = async () => {
    const c = client;
    client = null;
    await c?.end();
  };
  await connected();
  return {
    url,
    name,
    async query(sql, params) {
      return (await (await connected()).query(sql, params as unknown[])).rows;
    },
    close,
    async drop() {
      await close();
      const a = new pg.Client({ connectionString: serverUrl });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}
