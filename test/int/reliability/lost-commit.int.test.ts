// Issue 29: a retry after a COMMIT whose answer was lost must not write twice, and a key must never
// stay `in_progress` after its request is over. A proxy between the app and the database (the TCP
// port on PostgreSQL, the unix socket on the embedded database) loses the answer to one COMMIT, or
// cuts the connection before it, then the client retries with the same Idempotency-Key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { newActor } from '../../support/tensions.js';
import { rpc } from '../../support/raw-http.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../../support/database.js';
import { startPgProxy, type PgProxy } from '../../support/pg-proxy.js';
import { migrate, openDatabase } from '../../../server/persistence/database.js';
import { startEmbedded } from '../../../server/persistence/embedded.js';
import { IN_PROGRESS_LEASE_MS, requestHash } from '../../../server/application/idempotency.js';

let proxy: PgProxy;
let app: TestApp;
let writer: SeededUser;
let actorId: string;

/** The service's database, reached only through the proxy. */
async function proxiedDatabase(): Promise<TestDatabase> {
  if (onPostgres) {
    const base = await createTestDatabase();
    const target = new URL(base.url!);
    proxy = await startPgProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const url = new URL(base.url!);
    url.hostname = proxy.host;
    url.port = String(proxy.port);
    // Unnamed statements, so each one's SQL crosses the proxy (a kept prepared statement sends only its name).
    const db = await openDatabase({ databaseUrl: url.toString(), poolMax: 4, preparedStatements: false, create: false });
    return {
      ...db,
      url: base.url,
      close: async () => {
        await db.close();
        await proxy.close();
        await base.close();
      },
    };
  }
  const embedded = await startEmbedded({ maxConnections: 8 });
  proxy = await startPgProxy({ path: `${embedded.connection.host}/.s.PGSQL.${embedded.connection.port}` }, 'unix');
  const db = await openDatabase({ poolMax: 4, embedded: Promise.resolve({ ...embedded, connection: { ...embedded.connection, host: proxy.host } }) });
  await migrate(db.orm);
  return {
    ...db,
    close: async () => {
      await db.close();
      await proxy.close();
    },
  };
}

beforeAll(async () => {
  app = await startTestApp({}, {}, await proxiedDatabase());
  writer = await seedUserWithKey(app, { grants: ['tensions:*', 'actors:*'] });
  actorId = await newActor(client(app, writer.key), 'Lost commit org');
}, 120_000);
afterAll(async () => {
  await app?.close();
});

const withKey = (key: string) => client(app, writer.key, { 'idempotency-key': key });
const count = async (sql: string, params: unknown[] = []) => (await app.em().execute<{ n: number }[]>(sql, params))[0].n;
const tensionsNamed = (name: string) => count('select count(*)::int as n from tensions where name = ?', [name]);
const sensedNamed = (name: string) => count(`select count(*)::int as n from domain_events where type = 'TensionSensed' and data->>'name' = ?`, [name]);
const keyRows = (key: string, state?: string) =>
  count(`select count(*)::int as n from idempotency_keys where idempotency_key = ?${state ? ' and state = ?' : ''}`, state ? [key, state] : [key]);

/** Sends the request with the fault armed, and waits until the proxy has inflicted it. */
async function withFault(fault: 'lose-answer' | 'cut-before', send: () => Promise<{ status: number; headers: Headers; body: any }>, wrote?: RegExp) {
  const inflicted = proxy.arm({ fault, wrote });
  const answer = await send();
  await inflicted;
  return answer;
}

function expectUnavailable(res: { status: number; headers: Headers; body: any }) {
  expect(res.status, JSON.stringify(res.body)).toBe(503);
  expect(res.body.code).toBe('unavailable');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

describe('a COMMIT whose answer is lost', () => {
  it('the write committed: the first attempt is 503, the retry is the kept 201 replayed, and there is one tension and one TensionSensed', async () => {
    const key = `lost-${crypto.randomUUID()}`;
    const body = { name: 'Committed, answer lost', actorId, score: 3 };
    // the COMMIT of the transaction that appended the event
    const first = await withFault('lose-answer', () => withKey(key).post('/tensions', body), /insert into "?domain_events/i);
    expectUnavailable(first);
    const retry = await withKey(key).post('/tensions', body);
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.tension.name).toBe(body.name);
    expect(await tensionsNamed(body.name)).toBe(1);
    expect(await sensedNamed(body.name)).toBe(1);
    expect(await keyRows(key, 'done')).toBe(1);
  });

  it('whichever COMMIT of the request it is, the key is never left in progress: the retry is answered, not refused 409', async () => {
    const key = `first-commit-${crypto.randomUUID()}`;
    const body = { name: 'First commit lost', actorId };
    const first = await withFault('lose-answer', () => withKey(key).post('/tensions', body));
    expectUnavailable(first);
    expect(await keyRows(key, 'in_progress')).toBe(0);
    const retry = await withKey(key).post('/tensions', body);
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(await tensionsNamed(body.name)).toBe(1);
    expect(await sensedNamed(body.name)).toBe(1);
  });

  it('the write did not commit (cut before the COMMIT): nothing is kept and the retry runs it, once', async () => {
    const key = `cut-${crypto.randomUUID()}`;
    const body = { name: 'Never committed', actorId };
    const first = await withFault('cut-before', () => withKey(key).post('/tensions', body), /insert into "?domain_events/i);
    expectUnavailable(first);
    expect(await tensionsNamed(body.name)).toBe(0);
    expect(await keyRows(key)).toBe(0);
    const retry = await withKey(key).post('/tensions', body);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await tensionsNamed(body.name)).toBe(1);
    expect(await sensedNamed(body.name)).toBe(1);
  });

  it('GraphQL and MCP keys hold the same way: the retry of a lost-answer mutation or tool call gets the kept answer', async () => {
    const key = `gql-${crypto.randomUUID()}`;
    const input = { name: 'GraphQL answer lost', actorId };
    const SENSE = `mutation ($input: SenseTensionInput!, $key: String) { senseTension(input: $input, idempotencyKey: $key) { tension { id name } } }`;
    const gql = client(app, writer.key).gql;
    const first = await withFault('lose-answer', () => gql(SENSE, { input, key }), /insert into "?domain_events/i);
    expect(first.body.errors?.[0]?.extensions?.code, JSON.stringify(first.body)).toBe('UNAVAILABLE');
    const retry = await gql(SENSE, { input, key });
    expect(retry.body.errors, JSON.stringify(retry.body)).toBeUndefined();
    expect(retry.body.data.senseTension.tension.name).toBe(input.name);
    expect(await tensionsNamed(input.name)).toBe(1);
    expect(await sensedNamed(input.name)).toBe(1);

    const args = { name: 'MCP answer lost', actorId, idempotencyKey: `mcp-${crypto.randomUUID()}` };
    const call = () => rpc(app, writer.key, 'tools/call', { name: 'sense_tension', arguments: args });
    const lost = await withFault(
      'lose-answer',
      async () => {
        const r = await call();
        return { status: r.status, headers: r.headers, body: r.json };
      },
      /insert into "?domain_events/i,
    );
    expect(lost.body.result?.structuredContent, JSON.stringify(lost.body)).toMatchObject({ code: 'unavailable', retryAfterSeconds: expect.any(Number) });
    const again = await call();
    expect(again.json.result.isError, again.text).toBeFalsy();
    expect(again.json.result._meta?.idempotentReplayed).toBe(true);
    expect(await tensionsNamed(args.name)).toBe(1);
    expect(await sensedNamed(args.name)).toBe(1);
  });
});

describe('claims of earlier versions (committed before the work) expire with their request', () => {
  /** The row an earlier version committed before starting `body`'s work, `ageMs` ago. */
  const legacyClaim = async (key: string, body: unknown, ageMs: number) => {
    const hash = requestHash(app.deps, { key, method: 'POST', path: '/api/v1/tensions', body });
    const created = new Date(Date.now() - ageMs);
    await app.em().execute(
      `insert into idempotency_keys (user_id, api_key_id, idempotency_key, method, path, request_hash, state, created_at, expires_at)
       values (?, ?, ?, 'POST', '/api/v1/tensions', ?, 'in_progress', ?, ?)`,
      [writer.userId, writer.keyId, key, hash, created, new Date(created.getTime() + 24 * 3600_000)],
    );
  };

  it('a claim made 5 minutes ago (longer than any request runs) no longer refuses: the retry runs, not 409 for 24 hours', async () => {
    const key = `stale-claim-${crypto.randomUUID()}`;
    const body = { name: 'After a stale claim', actorId };
    expect(IN_PROGRESS_LEASE_MS).toBeLessThan(5 * 60_000);
    await legacyClaim(key, body, 5 * 60_000);
    const res = await withKey(key).post('/tensions', body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await tensionsNamed('After a stale claim')).toBe(1);
    expect(await keyRows(key, 'done')).toBe(1);
  });

  it('a claim within the lease is still a request in progress (409)', async () => {
    const key = `fresh-claim-${crypto.randomUUID()}`;
    const body = { name: 'During a fresh claim', actorId };
    await legacyClaim(key, body, 1_000);
    const res = await withKey(key).post('/tensions', body);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('idempotency_in_progress');
    expect(await tensionsNamed('During a fresh claim')).toBe(0);
  });
});
