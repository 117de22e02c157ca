// Issues 29 and 30: a database that cannot serve for now — stopped, out of connections, read-only, a
// lock or statement over its limit, no pool connection within DB_ACQUIRE_TIMEOUT_MS — is 503
// `unavailable` with Retry-After on every face (GraphQL UNAVAILABLE, MCP an `unavailable` error result),
// never a 500, and the service recovers by itself once the database does. Faults that stop or starve
// the server run on a private cluster; lock and statement timeouts on this test's own database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { newActor, newTension } from '../../support/tensions.js';
import { createTestDatabase, onPostgres, queryOnce, type TestDatabase } from '../../support/database.js';
import { holdTensionRow } from '../../support/row-lock.js';
import { rpc } from '../../support/raw-http.js';
import { privatePostgresUnavailable, startPrivatePostgres, type PrivatePostgres } from '../../support/private-postgres.js';
import { migrate, openDatabase, type DatabaseTimeouts } from '../../../server/persistence/database.js';

type Answer = { status: number; headers: Headers; body: any };

function expectUnavailable(res: Answer, where = '') {
  expect(res.status, `${where} ${JSON.stringify(res.body)}`).toBe(503);
  expect(res.headers.get('content-type'), where).toContain('application/problem+json');
  expect(res.body, where).toMatchObject({ status: 503, code: 'unavailable', requestId: expect.any(String) });
  expect(Number(res.headers.get('retry-after')), where).toBeGreaterThanOrEqual(1);
  // nothing of the failure: no SQL, no driver's words
  expect(JSON.stringify(res.body), where).not.toMatch(/lock|timeout|select|update|tensions|ECONN|terminat|knex|pool/i);
}

/** A served app whose database has the given limits, with a writer, an actor and a tension. */
async function appWith(opts: { poolMax?: number; timeouts?: DatabaseTimeouts; acquireTimeoutMs?: number }) {
  const app = await startTestApp({}, {}, await createTestDatabase(opts));
  const writer = await seedUserWithKey(app, { grants: ['tensions:*', 'actors:*'] });
  const actorId = await newActor(client(app, writer.key), 'Fault org');
  const tension = await newTension(client(app, writer.key), { name: 'Held', actorId });
  return { app, writer, actorId, tensionId: tension.id };
}

const RENAME = `mutation ($id: ID!, $name: String!) { renameTension(id: $id, input: { name: $name }) { tension { name } } }`;

describe.skipIf(!onPostgres)('a lock or a statement over its limit (PostgreSQL: another connection holds the row)', () => {
  for (const [what, timeouts] of [
    ['lock_timeout (55P03)', { statementMs: 0, lockMs: 200, idleInTransactionMs: 0 }],
    ['statement_timeout (57014)', { statementMs: 300, lockMs: 0, idleInTransactionMs: 0 }],
  ] as const) {
    it(`${what}: 503 unavailable with Retry-After on REST, UNAVAILABLE on GraphQL, an unavailable result on MCP; then served again`, async () => {
      const { app, writer, tensionId } = await appWith({ poolMax: 4, timeouts });
      const held = await holdTensionRow(app.db.url!, tensionId);
      try {
        const rest = client(app, writer.key);
        expectUnavailable(await rest.post(`/tensions/${tensionId}/rename`, { name: 'Blocked' }), 'REST');
        const gql = await rest.gql(RENAME, { id: tensionId, name: 'Blocked' });
        expect(gql.body.errors?.[0]?.extensions, JSON.stringify(gql.body)).toMatchObject({
          code: 'UNAVAILABLE',
          status: 503,
          retryAfterSeconds: expect.any(Number),
          requestId: expect.any(String),
        });
        expect(JSON.stringify(gql.body)).not.toMatch(/lock|timeout|select|update/i);
        const mcp = await rpc(app, writer.key, 'tools/call', { name: 'rename_tension', arguments: { id: tensionId, name: 'Blocked' } });
        expect(mcp.json.result?.isError, mcp.text).toBe(true);
        expect(mcp.json.result.structuredContent).toMatchObject({ code: 'unavailable', retryAfterSeconds: expect.any(Number), requestId: expect.any(String) });
        // a read that needs no lock is served meanwhile
        expect((await rest.get(`/tensions/${tensionId}`)).status).toBe(200);
      } finally {
        await held.release();
      }
      const after = await client(app, writer.key).post(`/tensions/${tensionId}/rename`, { name: 'Free again' });
      expect(after.status).toBe(200);
      await app.close();
    }, 60_000);
  }
});

describe('a request that waits for a pool connection past DB_ACQUIRE_TIMEOUT_MS (SPEC §7)', () => {
  it('is answered 503 unavailable with Retry-After on every face while the pool is held, and served once it is free', async () => {
    // 1 s, not less: the limit also bounds the first connection to a starting embedded database, which a busy machine
    // has been seen to take longer than 300 ms to give (MikroORM.init's first query timed out)
    const { app, writer, tensionId } = await appWith({ poolMax: 1, acquireTimeoutMs: 1_000 });
    // The pool's only connection, held by a transaction (as a slow request would hold it).
    const em = app.db.orm.em.fork();
    await em.begin();
    await em.execute('select 1');
    try {
      const rest = client(app, writer.key);
      expectUnavailable(await rest.get(`/tensions/${tensionId}`), 'REST read');
      expectUnavailable(await rest.post(`/tensions/${tensionId}/rename`, { name: 'Starved' }), 'REST write');
      const gql = await fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${writer.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: RENAME, variables: { id: tensionId, name: 'Starved' } }),
      });
      expect(gql.status).toBe(503);
      expect(Number(gql.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const mcp = await rpc(app, writer.key, 'tools/call', { name: 'get_tension', arguments: { id: tensionId } });
      expect(mcp.status, mcp.text).toBe(503);
      expect(Number(mcp.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await em.rollback();
    }
    expect((await client(app, writer.key).get(`/tensions/${tensionId}`)).status).toBe(200);
    await app.close();
  }, 60_000);

  it.skipIf(!onPostgres)(
    'held by a slow request (one waiting on a row lock): another caller gets 503, the slow one finishes',
    async () => {
      const { app, writer, tensionId } = await appWith({ poolMax: 1, acquireTimeoutMs: 300 });
      const held = await holdTensionRow(app.db.url!, tensionId);
      const rest = client(app, writer.key);
      const slow = rest.post(`/tensions/${tensionId}/rename`, { name: 'Slow but served' });
      try {
        await held.waitForWaiters(1);
        expectUnavailable(await rest.get('/tensions'), 'while the slow request holds the pool');
      } finally {
        await held.release();
      }
      expect((await slow).status).toBe(200);
      expect((await rest.get('/tensions')).status).toBe(200);
      await app.close();
    },
    60_000,
  );
});

describe.skipIf(!onPostgres)('a database that refuses writes (default_transaction_read_only), and its backends terminated (57P01)', () => {
  let db: TestDatabase;
  let fixture: Awaited<ReturnType<typeof appWith>>;
  const dbName = () => new URL(db.url!).pathname.slice(1);
  const terminateBackends = () => queryOnce(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${dbName()}' and pid <> pg_backend_pid()`);

  beforeAll(async () => {
    fixture = await appWith({ poolMax: 3 });
    db = fixture.app.db;
  }, 60_000);
  afterAll(async () => {
    await queryOnce(`alter database "${dbName()}" reset default_transaction_read_only`).catch(() => undefined);
    await fixture?.app.close();
  });

  it('writes are 503 unavailable (never 500), reads are served, /readyz is 503 read_only; all recovers when writes are allowed again', async () => {
    const { app, writer, actorId, tensionId } = fixture;
    const rest = client(app, writer.key);
    await queryOnce(`alter database "${dbName()}" set default_transaction_read_only = on`);
    await terminateBackends();
    // The pool finds out its connections are gone as it uses them: each such use is a 503 too.
    let write: Answer | undefined;
    for (let i = 0; i < 10; i++) {
      write = await rest.post('/tensions', { name: 'Read-only write', actorId });
      expectUnavailable(write, `write ${i}`);
    }
    let readyz: Response | undefined;
    for (let i = 0; i < 10 && readyz?.status !== 503; i++) readyz = await fetch(`${app.url}/readyz`);
    expect(readyz!.status).toBe(503);
    expect(await readyz!.json()).toEqual({ status: 'read_only' });
    let read: Answer | undefined;
    for (let i = 0; i < 5 && read?.status !== 200; i++) read = await rest.get(`/tensions/${tensionId}`);
    expect(read!.status).toBe(200);
    expect(await count(app, 'Read-only write')).toBe(0);

    await queryOnce(`alter database "${dbName()}" reset default_transaction_read_only`);
    await terminateBackends();
    let created: Answer | undefined;
    for (let i = 0; i < 10 && created?.status !== 201; i++) {
      created = await rest.post('/tensions', { name: 'Writable again', actorId });
      if (created.status !== 201) expectUnavailable(created, `recovering ${i}`);
    }
    expect(created!.status).toBe(201);
    expect((await fetch(`${app.url}/readyz`)).status).toBe(200);
  }, 60_000);
});

const count = async (app: TestApp, name: string) =>
  (await app.em().execute<{ n: number }[]>('select count(*)::int as n from tensions where name = ?', [name]))[0].n;

const noCluster = privatePostgresUnavailable();
if (noCluster) console.log(`database-faults: private PostgreSQL cases skipped: ${noCluster}`);

describe.skipIf(Boolean(noCluster))('PostgreSQL stopped, or out of connections (a private cluster)', () => {
  let cluster: PrivatePostgres;
  let app: TestApp;
  let writer: SeededUser;
  let actorId: string;

  beforeAll(async () => {
    cluster = await startPrivatePostgres({ max_connections: '8', superuser_reserved_connections: '0' });
    await queryOnce('create database market', cluster.url());
    const db = await openDatabase({ databaseUrl: cluster.url('market'), poolMax: 3, create: false });
    await migrate(db.orm);
    app = await startTestApp({}, {}, db);
    writer = await seedUserWithKey(app, { grants: ['tensions:*', 'actors:*'] });
    actorId = await newActor(client(app, writer.key), 'Outage org');
  }, 120_000);
  afterAll(async () => {
    await app?.close().catch(() => undefined);
    await cluster?.destroy();
  });

  it('stopped: every face answers 503 with Retry-After, /readyz 503; started again: served without a restart', async () => {
    const rest = client(app, writer.key);
    expect((await rest.post('/tensions', { name: 'Before the outage', actorId })).status).toBe(201);
    cluster.stop();
    try {
      expectUnavailable(await rest.post('/tensions', { name: 'During the outage', actorId }), 'REST write');
      expectUnavailable(await rest.get('/tensions'), 'REST read');
      const gql = await rest.gql('{ tensions(limit: 1) { items { id } } }');
      expect(gql.status, JSON.stringify(gql.body)).toBe(503);
      const mcp = await rpc(app, writer.key, 'tools/call', { name: 'list_tensions', arguments: {} });
      expect(mcp.status, mcp.text).toBe(503);
      expect((await fetch(`${app.url}/readyz`)).status).toBe(503);
    } finally {
      cluster.start();
    }
    let back: Answer | undefined;
    for (let i = 0; i < 20 && back?.status !== 201; i++) {
      back = await rest.post('/tensions', { name: 'After the outage', actorId });
      if (back.status !== 201) {
        expectUnavailable(back, `recovering ${i}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    expect(back!.status).toBe(201);
    expect((await fetch(`${app.url}/readyz`)).status).toBe(200);
    expect(await count(app, 'During the outage')).toBe(0);
  }, 90_000);

  it('too many connections (53300): new connections refused is 503, never 500', async () => {
    const rest = client(app, writer.key);
    // The app's pooled connections end; every free slot is then taken, so it cannot open new ones.
    await queryOnce(`select pg_terminate_backend(pid) from pg_stat_activity where datname = 'market' and pid <> pg_backend_pid()`, cluster.url());
    const hogs: pg.Client[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        const c = new pg.Client({ connectionString: cluster.url() });
        try {
          await c.connect();
          hogs.push(c);
        } catch {
          break; // full
        }
      }
      for (let i = 0; i < 5; i++) expectUnavailable(await rest.get('/tensions'), `full ${i}`);
    } finally {
      await Promise.all(hogs.map((c) => c.end()));
    }
    let served: Answer | undefined;
    for (let i = 0; i < 10 && served?.status !== 200; i++) served = await rest.get('/tensions');
    expect(served!.status).toBe(200);
  }, 60_000);
});
