// The embedded database: PGlite (PostgreSQL compiled to WASM) served on a private unix socket by a
// worker thread, so the ordinary postgresql driver, pool and migrations work unchanged.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdtemp, readdir, rename, rm, rmdir, mkdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export interface EmbeddedDatabase {
  /** connection options for the postgresql driver */
  connection: { host: string; port: number; user: string; dbName: string };
  close(): Promise<void>;
}

/**
 * The worker: PGlite and its socket server. PGlite runs every query synchronously, so off the main thread
 * it never stalls HTTP handling, and its boot (WebAssembly) overlaps the main thread's imports. Plain
 * JavaScript evaluated in the worker, so it runs the same from sources (tests) and from the build.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  try {
    const { PGlite } = await import(workerData.pgliteUrl);
    const { PGLiteSocketServer } = await import(workerData.socketUrl);
    const loadDataDir = workerData.loadDataDir ? new Blob([require('node:fs').readFileSync(workerData.loadDataDir)]) : undefined;
    const { pg_trgm } = await import(workerData.pgTrgmUrl);
    const db = await PGlite.create(workerData.pgdata ?? undefined, {
      loadDataDir,
      startParams: [...PGlite.defaultStartParams, ...workerData.memoryParams],
      extensions: { pg_trgm },
    });
    const server = new PGLiteSocketServer({ db, path: workerData.socketPath, maxConnections: workerData.maxConnections });
    await server.start();
    parentPort.on('message', async (message) => {
      if (message !== 'close') return;
      await server.stop();
      await db.close();
      parentPort.postMessage({ closed: true });
    });
    parentPort.postMessage({ ready: true });
  } catch (err) {
    parentPort.postMessage({ error: err && err.stack ? err.stack : String(err) });
  }
})();
`;

/**
 * PostgreSQL's memory sized for one process serving one service: shared_buffers (128 MB by default, about
 * 160 MB resident in PGlite's WebAssembly memory, which never shrinks) at 32 MB. PGlite reads its files
 * through the operating system's page cache, which keeps the hot pages in memory anyway.
 */
const MEMORY_PARAMS = ['-c', 'shared_buffers=32MB'];

/**
 * Creates a new data folder (initdb) in a child process: PGlite runs initdb in a second WebAssembly
 * instance whose memory (about 450 MB) the process never gives back, so done in-process the first start
 * stays at about 850 MB for good. Written beside the target and renamed into place once complete, so a
 * start killed half-way leaves no half-made folder for the next one. False when the child could not do
 * it (the worker then creates the folder itself, as before).
 */
async function provisionDataFolder(pgdata: string, pgliteUrl: string): Promise<boolean> {
  if (existsSync(join(pgdata, 'PG_VERSION'))) return true;
  const staging = `${pgdata}.new-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  const code = `const { PGlite } = await import(process.env.PGLITE_URL);
    const db = await PGlite.create(process.env.PGDATA_NEW, { startParams: [...PGlite.defaultStartParams, ...JSON.parse(process.env.PG_MEMORY_PARAMS)] });
    await db.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
    env: { PATH: process.env.PATH ?? '', PGLITE_URL: pgliteUrl, PGDATA_NEW: staging, PG_MEMORY_PARAMS: JSON.stringify(MEMORY_PARAMS) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2_000)));
  const exit = await new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('exit', (c) => resolve(c));
  });
  if (exit !== 0 || !existsSync(join(staging, 'PG_VERSION'))) {
    await rm(staging, { recursive: true, force: true });
    process.emitWarning(`the embedded database's new data folder could not be made in a child process (${exit}): ${stderr.trim()}; making it in-process`);
    return false;
  }
  try {
    // An empty target folder (made by hand, or by a start that went no further) is replaced; a non-empty
    // one is left to PGlite, as before.
    await rmdir(pgdata).catch(() => undefined);
    await rename(staging, pgdata);
    return true;
  } catch {
    await rm(staging, { recursive: true, force: true });
    return false;
  }
}

type WorkerMessage = { ready: true } | { closed: true } | { error: string };

function nextMessage(worker: Worker): Promise<WorkerMessage> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`the embedded database stopped (exit ${code})`));
    worker.once('error', reject);
    worker.once('exit', onExit);
    worker.once('message', (m: WorkerMessage) => {
      worker.off('error', reject);
      worker.off('exit', onExit);
      resolve(m);
    });
  });
}

/** Where PGlite keeps its files inside the data folder; it exists once a database was created there. */
export const embeddedDataFolder = (dataDir: string) => join(dataDir, 'pgdata');

const SOCKET_PORT = 5432;
/** The socket folder's name starts with its owner's process id, so a later start can tell a dead owner's. */
const socketDirPrefix = (pid: number) => `market-db-${pid}-`;
/** Folders of versions before the owner's pid was in the name. */
const LEGACY_SOCKET_DIR = /^market-db-[A-Za-z0-9]{6}$/;
/** A legacy folder without a socket may belong to an instance still booting; only this old is it stale. */
const LEGACY_GRACE_MS = 10 * 60_000;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, someone else's
  }
}

/** Whether something accepts connections on the folder's socket (a running instance, whoever started it). */
function socketAnswers(dir: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(join(dir, `.s.PGSQL.${SOCKET_PORT}`));
    const done = (answers: boolean) => {
      socket.destroy();
      resolve(answers);
    };
    socket.setTimeout(1_000, () => done(true)); // slow to answer is not dead
    socket.once('connect', () => done(true));
    // Refused, or no socket at all: nobody serves it. Anything else (a full backlog) is somebody busy.
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code !== 'ECONNREFUSED' && err.code !== 'ENOENT'));
  });
}

/**
 * Removes the socket folders that killed instances left in the temporary folder (a SIGKILL skips every
 * cleanup): only this user's, only when the owning process is gone and nothing answers on the socket,
 * so another running instance (this process's, or another's) is never touched.
 */
async function removeStaleSocketFolders(root = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names) {
    const owner = /^market-db-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
    if (!owner && !LEGACY_SOCKET_DIR.test(name)) continue;
    const dir = join(root, name);
    try {
      const st = await lstat(dir);
      if (!st.isDirectory() || st.uid !== process.getuid?.()) continue;
      if (owner ? processAlive(Number(owner[1])) : Date.now() - st.mtimeMs < LEGACY_GRACE_MS && !(await hasSocket(dir))) continue;
      if (await socketAnswers(dir)) continue;
      await rm(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // removed meanwhile by its owner or another start
    }
  }
  return removed;
}

const hasSocket = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).length > 0;

/**
 * The socket server's limit for a client that opens at most `maxConnections` at once. The server counts a
 * connection until its own event loop sees it close, which waits behind the statement PGlite is running; a
 * pool that closes a connection and opens the next one at once (an idle one reaped, a broken one replaced)
 * would otherwise find the server full and its new connection reset (ECONNRESET, EPIPE), failing a request.
 * Twice the client's count leaves room for as many closing connections as it has open: more would need it
 * to replace every connection within one statement. The socket is private to this process (a 0700 folder), so
 * the limit guards against nothing but a leak.
 */
export const socketLimit = (maxConnections: number) => 2 * maxConnections;

/**
 * `dataDir` undefined keeps everything in memory (tests). `loadDataDir`, in memory only: the path of a
 * tarball of a data folder (PGlite's `dumpDataDir('none')`) to start from instead of a new, empty one (initdb),
 * so the test suite starts every file from one migrated copy.
 */
export async function startEmbedded(opts: { dataDir?: string; maxConnections: number; loadDataDir?: string }): Promise<EmbeddedDatabase> {
  if (opts.dataDir && opts.loadDataDir) throw new Error('loadDataDir starts an in-memory database: not with dataDir');
  const pgliteUrl = import.meta.resolve('@electric-sql/pglite');
  if (opts.dataDir) {
    await mkdir(opts.dataDir, { recursive: true });
    await provisionDataFolder(embeddedDataFolder(opts.dataDir), pgliteUrl);
  }
  // A private folder (0700) for the socket; unix socket paths are short, so never under DATA_DIR.
  const socketDir = await mkdtemp(join(tmpdir(), socketDirPrefix(process.pid)));
  const port = SOCKET_PORT;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      pgliteUrl,
      memoryParams: MEMORY_PARAMS,
      socketUrl: import.meta.resolve('@electric-sql/pglite-socket'),
      // Trigram indexes for substring search (issue 37); PGlite ships pg_trgm as a contrib extension that
      // must be handed to it at start, after which the migration's `create extension` works as on PostgreSQL.
      pgTrgmUrl: import.meta.resolve('@electric-sql/pglite/contrib/pg_trgm'),
      pgdata: opts.dataDir ? embeddedDataFolder(opts.dataDir) : null,
      loadDataDir: opts.loadDataDir ?? null,
      socketPath: join(socketDir, `.s.PGSQL.${port}`),
      maxConnections: socketLimit(opts.maxConnections),
    },
  });
  // While the worker boots: what killed instances left behind.
  const cleaned = removeStaleSocketFolders().catch(() => []);
  const started = await nextMessage(worker).catch((err: Error) => ({ error: err.message }));
  await cleaned;
  if (!('ready' in started)) {
    await worker.terminate();
    await rm(socketDir, { recursive: true, force: true });
    throw new Error(`the embedded database did not start: ${'error' in started ? started.error : 'unknown'}`);
  }
  return {
    connection: { host: socketDir, port, user: 'postgres', dbName: 'postgres' },
    async close() {
      const closed = nextMessage(worker);
      worker.postMessage('close');
      await closed.catch(() => undefined);
      await worker.terminate();
      await rm(socketDir, { recursive: true, force: true });
    },
  };
}
