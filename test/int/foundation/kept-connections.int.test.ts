// The hot path keeps a pool connection between its statements (server/persistence/statements.ts,
// KeptConnections) instead of handing it back to the pool and acquiring it again: the pool's limit still
// holds, and a kept connection goes back the moment anyone else needs it, when it has been idle a while,
// when it fails, and when the pool closes. With a pool of one connection, any of these going wrong is a
// caller waiting for a connection nobody uses.
import { afterEach, describe, expect, it } from 'vitest';
import { keptIdle, withoutValues } from '../../../server/persistence/statements.js';
import { isTransientDatabaseError } from '../../../server/persistence/transient.js';
import { createTestDatabase, onPostgres, queryOnce, type TestDatabase } from '../../support/database.js';

interface Pool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}
interface Conn {
  query(sql: string): Promise<{ rows: { pid: number }[] }>;
}
interface Client {
  pool: Pool;
  acquireConnection(): Promise<Conn>;
  releaseConnection(c: Conn): Promise<void>;
}

let db: TestDatabase | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

async function oneConnection(acquireTimeoutMs = 3_000) {
  db = await createTestDatabase({ poolMax: 1, acquireTimeoutMs });
  const em = db.orm.em.fork();
  const client = em.getConnection().getKnex().client as unknown as Client;
  /** one statement the way the hot path runs it; its backend's pid */
  const statement = async (sql = 'select pg_backend_pid() as pid') => (await withoutValues<{ pid: number }>(em, sql))[0]?.pid;
  return { db, em, client, pool: client.pool, statement };
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('connections kept between the hot path statements', () => {
  it('keeps the connection for the next statement, and the pool counts it as its own', async () => {
    const { pool, statement } = await oneConnection();
    const first = await statement();
    expect(keptIdle(pool)).toBe(1);
    expect(pool.numUsed()).toBe(1); // lent by the pool: its limit of one holds
    if (onPostgres) expect(await statement()).toBe(first); // the same session, its prepared statements with it
    expect(keptIdle(pool)).toBe(1);
  });

  it('hands a kept connection back the moment another caller asks the pool for one it does not have', async () => {
    const { pool, client, statement } = await oneConnection();
    await statement();
    expect(keptIdle(pool)).toBe(1);
    const acquiring = client.acquireConnection();
    try {
      // handed back inside the request itself: nobody waits for the one connection the keep holds
      expect(keptIdle(pool)).toBe(0);
      expect(pool.numPendingAcquires()).toBe(0);
      await acquiring;
      // the other caller holds it: the next statement waits for the pool, then runs
      const next = statement();
      await until('the statement waits for the pool', () => pool.numPendingAcquires() === 1);
      await client.releaseConnection(await acquiring);
      await next;
      expect(keptIdle(pool)).toBe(1);
    } finally {
      await client.releaseConnection(await acquiring); // a second release of the same connection is a no-op
    }
  });

  it('hands the connection back when its statement ends while another caller waits for one', async () => {
    const { pool, client, statement } = await oneConnection();
    await statement();
    const slow = statement('select pg_backend_pid() as pid from pg_sleep(0.2)');
    // the slow statement took the kept connection: another caller now waits in the pool
    const acquiring = client.acquireConnection();
    try {
      expect(pool.numPendingAcquires()).toBe(1);
      await slow;
      expect(keptIdle(pool)).toBe(0);
    } finally {
      await client.releaseConnection(await acquiring);
    }
  });

  it('hands an idle kept connection back after a second, to the pool and its own idle timeout', async () => {
    const { pool, statement } = await oneConnection();
    await statement();
    expect(keptIdle(pool)).toBe(1);
    await until('the idle connection is handed back', () => keptIdle(pool) === 0);
    expect(pool.numUsed()).toBe(0);
    expect(pool.numFree()).toBe(1);
  });

  it('lets the pool close with a connection kept (no wait for a connection nobody will hand back)', async () => {
    const { db: d, pool, statement } = await oneConnection();
    await statement();
    expect(keptIdle(pool)).toBe(1);
    // the pool waits for every connection it lent to come back before it closes: by the time it is asked to
    // close (this listener runs after the keep's), the kept one is back
    let keptWhenAsked = -1;
    (pool as unknown as { on(e: string, l: () => void): void }).on('poolDestroyRequest', () => (keptWhenAsked = keptIdle(pool)));
    await d.orm.close(true);
    db = undefined;
    expect(keptWhenAsked).toBe(0);
  });

  it.skipIf(!onPostgres)('never runs a statement on a kept connection whose session ended: the next one gets a new connection', async () => {
    const { pool, statement } = await oneConnection();
    const pid = await statement();
    expect(keptIdle(pool)).toBe(1);
    await queryOnce(`select pg_terminate_backend(${pid})`);
    await until('the session is gone', async () => (await queryOnce(`select 1 from pg_stat_activity where pid = ${pid}`)).rowCount === 0);
    await until('the driver saw it end', () => new Promise((r) => setImmediate(() => r(true))));
    const next = await statement();
    expect(next).not.toBe(pid);
    expect(keptIdle(pool)).toBe(1);
  });

  it('queues statements for the keep’s own connection, in order, while every connection is lent', async () => {
    const { pool, statement } = await oneConnection();
    const first = await statement();
    const order: string[] = [];
    const run = (name: string, sql?: string) => statement(sql).then((pid) => (order.push(name), pid));
    const slow = run('slow', 'select pg_backend_pid() as pid from pg_sleep(0.2)');
    const queued = ['a', 'b', 'c'].map((n) => run(n));
    // they wait for the keep's connection, not in the pool (whose queue costs what its acquisitions cost)
    expect(pool.numPendingAcquires()).toBe(0);
    const pids = await Promise.all([slow, ...queued]);
    expect(order).toEqual(['slow', 'a', 'b', 'c']);
    if (onPostgres) expect(new Set(pids)).toEqual(new Set([first]));
    expect(keptIdle(pool)).toBe(1);
  });

  it('refuses a statement that waited DB_ACQUIRE_TIMEOUT_MS in the queue, as the pool refuses one (503, never a hang)', async () => {
    const { pool, statement } = await oneConnection(300);
    await statement();
    const slow = statement('select pg_backend_pid() as pid from pg_sleep(1.5)');
    const waited = statement().then(
      () => null,
      (err: unknown) => err,
    );
    expect(pool.numPendingAcquires()).toBe(0); // in the keep's queue
    const err = await waited;
    expect(err, 'the queued statement ran: it should have been refused after 300 ms').toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/Timeout acquiring a connection/);
    expect((err as Error).name).toBe('ConnectionWaitTimeout');
    expect(isTransientDatabaseError(err)).toBe(true); // answered 503 unavailable with Retry-After
    await slow;
    expect(await statement()).toBeDefined(); // and the keep serves again
  });

  it('serves a caller waiting in the pool before the statements queued in the keep', async () => {
    const { pool, client, statement } = await oneConnection();
    await statement();
    const order: string[] = [];
    const slow = statement('select pg_backend_pid() as pid from pg_sleep(0.2)').then(() => order.push('slow'));
    const queued = statement().then(() => order.push('queued'));
    const other = client.acquireConnection().then(async (conn) => {
      order.push('other');
      await new Promise((r) => setTimeout(r, 50));
      await client.releaseConnection(conn);
    });
    expect(pool.numPendingAcquires()).toBe(1); // the other caller waits in the pool, the statement in the keep
    await Promise.all([slow, queued, other]);
    expect(order).toEqual(['slow', 'other', 'queued']);
  });
});
