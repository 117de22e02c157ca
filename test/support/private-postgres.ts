// A PostgreSQL cluster of the test's own (initdb + pg_ctl in a temp folder, on a free port), for faults
// that stop or starve the server: the shared one at 127.0.0.1:5432 is never touched. Absent binaries
// (or no way to run them as a non-root user) make `privatePostgresUnavailable` say why, to skip with.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './process.js';

const BIN = ['/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin'].find((d) => existsSync(join(d, 'initdb')));
const asRoot = process.getuid?.() === 0;

function postgresIds(): { uid: number; gid: number } | null {
  try {
    return { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) };
  } catch {
    return null;
  }
}

/** Why no private cluster can be started here, or null when one can. */
export function privatePostgresUnavailable(): string | null {
  if (!BIN) return 'no initdb under /usr/lib/postgresql/{15,16,17}/bin';
  if (asRoot && !postgresIds()) return 'running as root and there is no postgres user to run initdb as';
  return null;
}

export interface PrivatePostgres {
  port: number;
  /** a URL for database `name` (default postgres) */
  url(name?: string): string;
  stop(): void;
  start(): void;
  destroy(): Promise<void>;
}

/**
 * `settings`: extra server settings (`-c name=value`), e.g. `{ max_connections: '8' }`. `nextXid`: the
 * first transaction id the cluster hands out (pg_resetwal -x), to test what happens when ids gain a
 * digit; it must be the first id of a commit-log page (a multiple of 32,768), which the server creates.
 */
export async function startPrivatePostgres(settings: Record<string, string> = {}, opts: { nextXid?: number } = {}): Promise<PrivatePostgres> {
  if (opts.nextXid !== undefined && opts.nextXid % 32_768 !== 0) throw new Error('nextXid must be a multiple of 32768');
  const dir = await mkdtemp(join(tmpdir(), 'private-pg-'));
  const data = join(dir, 'data');
  const ids = asRoot ? postgresIds() : null;
  if (ids) {
    await chown(dir, ids.uid, ids.gid);
    await chmod(dir, 0o700);
  }
  const run = (cmd: string, args: string[]) =>
    execFileSync(ids ? 'runuser' : join(BIN!, cmd), ids ? ['-u', 'postgres', '--', join(BIN!, cmd), ...args] : args, { stdio: 'pipe', timeout: 60_000 });
  run('initdb', ['-D', data, '--auth=trust', '--username=postgres', '--no-sync', '-E', 'UTF8']);
  if (opts.nextXid !== undefined) run('pg_resetwal', ['-x', String(opts.nextXid), '-D', data]);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-c listen_addresses=127.0.0.1`,
    `-c unix_socket_directories=${dir}`,
    '-c fsync=off',
    ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`),
  ].join(' ');
  const start = () => void run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  const stop = () => void run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  start();
  return {
    port,
    url: (name = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${name}`,
    stop,
    start,
    async destroy() {
      try {
        stop();
      } catch {
        // already stopped
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
