// The `market-service` CLI (from sources) as a server that is not waited on (for starts meant not to
// become ready), and empty PostgreSQL databases for it; `runCli` (run to the end) is in process.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { randomBytes } from 'node:crypto';

export function spawnCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A new, empty (unmigrated) PostgreSQL database next to DATABASE_URL's; `drop` removes it. */
export async function emptyPostgresDatabase(): Promise<{ url: string; query: (sql: string) => Promise<pg.QueryResult>; drop(): Promise<void> }> {
  const name = `t_empty_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await c.connect();
    try {
      return await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`create database "${name}"`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async query(sql) {
      const c = new pg.Client({ connectionString: url.toString() });
      await c.connect();
      try {
        return await c.query(sql);
      } finally {
        await c.end();
      }
    },
    drop: async () => void (await admin(`drop database if exists "${name}" with (force)`)),
  };
}
