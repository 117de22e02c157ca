// Runs the `market-service` CLI (from sources) as a child process: exit code and output, or a server
// that is not waited on (for starts that are meant not to become ready).
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { randomBytes } from 'node:crypto';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env };
}

export function spawnCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', ...args], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
}

export async function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  const child = spawnCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, stdout, stderr };
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
