// Issue 29: a SIGKILLed embedded instance leaves its socket folder (`<tmp>/market-db-<pid>-*`) behind; the
// next embedded start removes such folders when their owner is gone, and never a running instance's.
// Runs in a private temporary folder (TMPDIR), so other processes' folders are never in play.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type EmbeddedDatabase } from '../../../server/persistence/embedded.js';

let root: string;
const savedTmp = process.env.TMPDIR;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'socket-folders-'));
  process.env.TMPDIR = root;
});
afterAll(async () => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  await rm(root, { recursive: true, force: true });
});

/** An embedded database in a child process, SIGKILLed once it serves: its socket folder. */
async function killedInstanceFolder(): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `import('./server/persistence/embedded.ts').then(async (m) => { const db = await m.startEmbedded({ maxConnections: 2 }); console.log('HOST ' + db.connection.host); setInterval(() => {}, 1000); })`,
    ],
    { env: { ...process.env, TMPDIR: root }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stderr.on('data', (d) => (out += d));
  const host = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /HOST (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`the child exited (${code}) before serving:\n${out}`)));
  });
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  return host;
}

async function answers(host: string): Promise<number> {
  const client = new pg.Client({ host, port: 5432, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    return (await client.query('select 41 + 1 as n')).rows[0].n;
  } finally {
    await client.end();
  }
}

describe('embedded socket folders left by killed instances', () => {
  it('a start removes a killed instance’s folder and stale legacy ones, and leaves running instances’ (and a fresh legacy one) alone', async () => {
    const killed = await killedInstanceFolder();
    expect(killed.startsWith(join(root, 'market-db-'))).toBe(true);
    expect(existsSync(join(killed, '.s.PGSQL.5432')), 'SIGKILL left the socket behind').toBe(true);
    const deadPid = Number(/market-db-(\d+)-/.exec(killed)![1]);

    // Another process's instance, still booting (no socket yet): its owner lives.
    const owner = spawn('sleep', ['120'], { stdio: 'ignore' });
    const booting = join(root, `market-db-${owner.pid}-Boot01`);
    await mkdir(booting, { mode: 0o700 });
    // A folder whose named owner is gone but whose socket answers (another pid namespace): somebody serves it.
    const serving = join(root, `market-db-${deadPid}-Serve1`);
    await mkdir(serving, { mode: 0o700 });
    const server = createServer((s) => s.end());
    await new Promise<void>((r) => server.listen(join(serving, '.s.PGSQL.5432'), r));
    // Folders of versions before the owner's pid was in the name: an old one without socket is stale;
    // a fresh one without socket may be an instance still booting.
    const legacyOld = join(root, 'market-db-AbC123');
    const legacyFresh = join(root, 'market-db-XyZ789');
    for (const d of [legacyOld, legacyFresh]) await mkdir(d, { mode: 0o700 });
    const hourAgo = new Date(Date.now() - 3600_000);
    await utimes(legacyOld, hourAgo, hourAgo);
    // Not ours to touch: another program's folder with a similar name, and a file.
    const other = join(root, 'market-db-notes');
    await mkdir(other);
    await writeFile(join(root, 'market-db-1-abcdef'), 'a file, not a folder');

    let next: EmbeddedDatabase | undefined;
    try {
      next = await startEmbedded({ maxConnections: 2 });
      expect(existsSync(killed), 'the killed instance’s folder is gone').toBe(false);
      expect(existsSync(legacyOld), 'the stale legacy folder is gone').toBe(false);
      expect(existsSync(booting), 'a live owner’s folder stays').toBe(true);
      expect(existsSync(join(serving, '.s.PGSQL.5432')), 'a served socket stays').toBe(true);
      expect(existsSync(legacyFresh), 'a fresh legacy folder stays').toBe(true);
      expect(existsSync(other)).toBe(true);
      expect(existsSync(join(root, 'market-db-1-abcdef'))).toBe(true);
      expect(await answers(next.connection.host)).toBe(42);
    } finally {
      await next?.close();
      owner.kill('SIGKILL');
      await new Promise<void>((r) => server.close(() => r()));
    }
  }, 240_000);
});
