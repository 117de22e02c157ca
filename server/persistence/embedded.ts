// The embedded database: PGlite (PostgreSQL compiled to WASM) served on a private unix socket by a
// worker thread, so the ordinary postgresql driver, pool and migrations work unchanged.
import { mkdtemp, rm, mkdir } from 'node:fs/promises';
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
    const db = await PGlite.create(workerData.pgdata ?? undefined);
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

/** `dataDir` undefined keeps everything in memory (tests). */
export async function startEmbedded(opts: { dataDir?: string; maxConnections: number }): Promise<EmbeddedDatabase> {
  if (opts.dataDir) await mkdir(opts.dataDir, { recursive: true });
  // A private folder (0700) for the socket; unix socket paths are short, so never under DATA_DIR.
  const socketDir = await mkdtemp(join(tmpdir(), 'market-db-'));
  const port = 5432;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      pgliteUrl: import.meta.resolve('@electric-sql/pglite'),
      socketUrl: import.meta.resolve('@electric-sql/pglite-socket'),
      pgdata: opts.dataDir ? embeddedDataFolder(opts.dataDir) : null,
      socketPath: join(socketDir, `.s.PGSQL.${port}`),
      maxConnections: opts.maxConnections,
    },
  });
  const started = await nextMessage(worker).catch((err: Error) => ({ error: err.message }));
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
