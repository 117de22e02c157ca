// The embedded database's socket server counts a connection until its own event loop sees it close, which
// waits behind the statement PGlite runs. A pool replaces connections without waiting for the old one's
// close (an idle one reaped, a broken one destroyed): the new one must be served, never reset. Seen in CI
// as a test's query failing with `read ECONNRESET`, and once as `write EPIPE` at a connection's start.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type EmbeddedDatabase } from '../../../server/persistence/embedded.js';

/** What the service opens at most: its pool (here 2) and two connections of its own (database.ts). */
const MAX_CONNECTIONS = 4;
let db: EmbeddedDatabase;

beforeAll(async () => {
  db = await startEmbedded({ maxConnections: MAX_CONNECTIONS });
});
afterAll(async () => {
  await db?.close();
});

async function connected(): Promise<pg.Client> {
  const { host, port, user, dbName } = db.connection;
  const client = new pg.Client({ host, port, user, database: dbName });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

describe('the embedded database, at as many connections as the service opens', () => {
  it('serves a connection opened while the one it replaces is still closing, every time', { timeout: 120_000 }, async () => {
    const open = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, connected));
    const failures: string[] = [];
    // a statement that keeps the server's thread busy while the close is on its way, as a pool's work does
    const busy = open[0];
    for (let n = 0; n < 200; n++) {
      const oldest = open.splice(1, 1)[0];
      const running = busy.query('select count(*) from generate_series(1, 2000)');
      void oldest.end().catch(() => undefined); // as a pool destroys one: not waited for
      try {
        const next = await connected();
        expect((await next.query<{ n: number }>('select 1 as n')).rows[0].n).toBe(1);
        open.push(next);
      } catch (err) {
        failures.push(`${n}: ${(err as Error).message}`);
        break;
      } finally {
        await running.catch(() => undefined);
      }
    }
    expect(failures).toEqual([]);
    await Promise.all(open.map((c) => c.end().catch(() => undefined)));
  });
});
