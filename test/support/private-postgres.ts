// A PostgreSQL cluster of the test's own (initdb in a temporary folder, on a free port), for faults and
// states a test must not inflict on the shared server: transaction ids set forward, a server stopped.
// Skips, saying why, where the machine has no PostgreSQL binaries.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './process.js';

const run = promisify(execFile);

function binDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : null;
}

export interface PrivatePostgres {
  /** postgres://… of `database` on this cluster */
  url(database?: string): string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts a private cluster. `nextXid`: the first transaction id it hands out (pg_resetwal -x); must be
 * the first id of a commit-log page (a multiple of 32,768), which the server then creates.
 */
export async function privatePostgres(opts: { nextXid?: number } = {}): Promise<PrivatePostgres | { reason: string }> {
  const bin = binDir();
  if (!bin) return { reason: 'no PostgreSQL binaries under /usr/lib/postgresql' };
  if (opts.nextXid !== undefined && opts.nextXid % 32_768 !== 0) throw new Error('nextXid must be a multiple of 32768');
  // initdb refuses root: run the cluster as the postgres user when the tests run as root
  const asRoot = process.getuid?.() === 0;
  let uid = 0;
  let gid = 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']).catch(() => ({ stdout: '' }));
    if (!stdout.trim()) return { reason: 'running as root and there is no postgres user to run a private cluster as' };
    uid = Number(stdout.trim());
    gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  }
  const dir = await mkdtemp(join(tmpdir(), 'market-pg-'));
  if (asRoot) await chown(dir, uid, gid);
  await chmod(dir, 0o700);
  const as = (cmd: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]) : run(join(bin, cmd), args));
  const data = join(dir, 'data');
  const port = await freePort();
  try {
    await as('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    if (opts.nextXid !== undefined) await as('pg_resetwal', ['-x', String(opts.nextXid), '-D', data]);
    await as('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '60', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`, 'start']);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async stop() {
      await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
