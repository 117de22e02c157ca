// The embedded database: PGlite (PostgreSQL compiled to WASM) served on a private unix socket,
// so the ordinary postgresql driver, pool and migrations work unchanged.
import { mkdtemp, rm, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedDatabase {
  /** connection options for the postgresql driver */
  connection: { host: string; port: number; user: string; dbName: string };
  close(): Promise<void>;
}

/** `dataDir` undefined keeps everything in memory (tests). */
export async function startEmbedded(opts: { dataDir?: string; maxConnections: number }): Promise<EmbeddedDatabase> {
  if (opts.dataDir) await mkdir(opts.dataDir, { recursive: true });
  const db = await PGlite.create(opts.dataDir ? join(opts.dataDir, 'pgdata') : undefined);
  // A private folder (0700) for the socket; unix socket paths are short, so never under DATA_DIR.
  const socketDir = await mkdtemp(join(tmpdir(), 'market-db-'));
  const port = 5432;
  const server = new PGLiteSocketServer({
    db,
    path: join(socketDir, `.s.PGSQL.${port}`),
    maxConnections: opts.maxConnections,
  });
  await server.start();
  return {
    connection: { host: socketDir, port, user: 'postgres', dbName: 'postgres' },
    async close() {
      await server.stop();
      await db.close();
      await rm(socketDir, { recursive: true, force: true });
    },
  };
}
