// Idempotent retries (SPEC §12): a retry with the same Idempotency-Key gets the first answer and writes
// nothing; a different request under the key is refused; keys are the caller's own; answers expire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { newActor } from '../../support/tensions.js';
import { deleteExpired } from '../../../server/persistence/housekeeping.js';
import { LOGIN_WINDOW_MS } from '../../../server/application/auth/throttle.js';
import { IDEMPOTENCY_TTL_MS } from '../../../server/application/idempotency.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpHttpClient } from '../../support/mcp.js';
import { onPostgres, type TestDatabase } from '../../support/database.js';
import { startTwoInstances, type ProcessApi, type TwoInstances } from '../../support/consistency.js';

let app: TestApp;
let writer: SeededUser;
let actorId: string;

/** Set to make the next new id throw: a bug in the middle of a first attempt. */
let failNextId = false;
const flakyId = () => {
  if (failNextId) {
    failNextId = false;
    throw new Error('injected failure');
  }
  return crypto.randomUUID();
};

beforeAll(async () => {
  app = await startTestApp({}, { newId: flakyId });
  writer = await seedUserWithKey(app, { grants: ['tensions:*', 'actors:*'] });
  actorId = await newActor(client(app, writer.key), 'Retry Org');
});
afterAll(async () => {
  await app?.close();
});

const withKey = (key: string, idempotencyKey: string) => client(app, key, { 'idempotency-key': idempotencyKey });
const count = async (sql: string, params: unknown[] = []) => (await app.em().execute<{ n: number }[]>(sql, params))[0].n;
const tensionsNamed = (name: string) => count('select count(*)::int as n from tensions where name = ?', [name]);
const eventsOf = (id: string) => count(`select count(*)::int as n from domain_events where stream_id = ?`, [id]);
const uniqueKey = () => `retry-${crypto.randomUUID()}`;

describe('REST Idempotency-Key', () => {
  it('answers a retry with the first answer, marked as replayed, and writes once', async () => {
    const key = uniqueKey();
    const body = { name: 'Sensed once', actorId, score: 6 };
    const first = await withKey(writer.key, key).post('/tensions', body);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // the same body with its keys in another order is the same request
    const retry = await withKey(writer.key, key).post('/tensions', { score: 6, actorId, name: 'Sensed once' });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await tensionsNamed('Sensed once')).toBe(1);
    expect(await eventsOf(first.body.tension.id)).toBe(1);

    // a command on the tension: the retry does not append a second event
    const renameKey = uniqueKey();
    const path = `/tensions/${first.body.tension.id}/rename`;
    const renamed = await withKey(writer.key, renameKey).post(path, { name: 'Renamed once' });
    expect(renamed.status).toBe(200);
    await client(app, writer.key).post(path, { name: 'Renamed in between' });
    const again = await withKey(writer.key, renameKey).post(path, { name: 'Renamed once' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(renamed.body);
    expect(await eventsOf(first.body.tension.id)).toBe(3);
    expect((await client(app, writer.key).get(`/tensions/${first.body.tension.id}`)).body.name).toBe('Renamed in between');
  });

  it('keeps a refusal as the answer too', async () => {
    const key = uniqueKey();
    const missing = '00000000-0000-4000-8000-000000000000';
    const first = await withKey(writer.key, key).post('/tensions', { name: 'No actor', actorId: missing });
    expect(first.status).toBe(404);
    expect(first.body.code).toBe('actor_not_found');
    const retry = await withKey(writer.key, key).post('/tensions', { name: 'No actor', actorId: missing });
    expect(retry.status).toBe(404);
    expect(retry.headers.get('content-type')).toContain('application/problem+json');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
  });

  it('refuses the same key for a different body, method or path (422), and writes nothing', async () => {
    const key = uniqueKey();
    expect((await withKey(writer.key, key).post('/tensions', { name: 'Keyed A', actorId })).status).toBe(201);
    const other = await withKey(writer.key, key).post('/tensions', { name: 'Keyed B', actorId });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
    expect(await tensionsNamed('Keyed B')).toBe(0);
    const otherPath = await withKey(writer.key, key).post('/actors', { name: 'Keyed actor', type: 'organization' });
    expect(otherPath.status).toBe(422);
    expect(await count('select count(*)::int as n from actors where name = ?', ['Keyed actor'])).toBe(0);
  });

  it('refuses a malformed key (400) before doing anything', async () => {
    for (const bad of ['x'.repeat(256), 'tab\there', 'naïve']) {
      // fetch itself refuses some header values; the ones it sends must be refused by the server
      const res = await withKey(writer.key, bad)
        .post('/tensions', { name: 'Badly keyed', actorId })
        .catch(() => null);
      if (bad.length > 255) expect(res).not.toBeNull();
      if (!res) continue;
      expect(res.status, bad).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors[0]).toMatchObject({ path: 'Idempotency-Key', code: 'invalid_format' });
    }
    const empty = await fetch(`${app.url}/api/v1/tensions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer.key}`, 'content-type': 'application/json', 'idempotency-key': '' },
      body: JSON.stringify({ name: 'Badly keyed', actorId }),
    });
    expect(empty.status).toBe(400);
    expect(await tensionsNamed('Badly keyed')).toBe(0);
  });

  it('scopes keys to the caller: another caller with the same key runs its own request', async () => {
    const other = await seedUserWithKey(app, { grants: ['tensions:*'] });
    const key = uniqueKey();
    const mine = await withKey(writer.key, key).post('/tensions', { name: 'Scoped', actorId });
    const theirs = await withKey(other.key, key).post('/tensions', { name: 'Scoped', actorId });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.tension.id).not.toBe(mine.body.tension.id);
    expect(await tensionsNamed('Scoped')).toBe(2);
  });

  it('runs concurrent duplicates once: one 201, the others 409 idempotency_in_progress or the replay', async () => {
    const key = uniqueKey();
    const body = { name: 'Raced', actorId };
    const answers = await Promise.all(Array.from({ length: 6 }, () => withKey(writer.key, key).post('/tensions', body)));
    const created = answers.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    expect(created).toHaveLength(1);
    for (const r of answers) {
      if (r === created[0]) continue;
      if (r.status === 409) expect(r.body.code).toBe('idempotency_in_progress');
      else {
        expect(r.status).toBe(201);
        expect(r.headers.get('idempotent-replayed')).toBe('true');
        expect(r.body).toEqual(created[0].body);
      }
    }
    expect(await tensionsNamed('Raced')).toBe(1);
  });

  it('replays a key creation without the secret, which is never stored', async () => {
    const admin = await seedUserWithKey(app, { grants: ['users:*'] });
    const agent = await seedUserWithKey(app, { type: 'agent', grants: [] });
    const key = uniqueKey();
    const first = await withKey(admin.key, key).post(`/users/${agent.userId}/api-keys`, { name: 'once' });
    expect(first.status).toBe(201);
    expect(first.body.key).toMatch(/^mk_/);
    const retry = await withKey(admin.key, key).post(`/users/${agent.userId}/api-keys`, { name: 'once' });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).not.toHaveProperty('key');
    const { key: _secret, ...metadata } = first.body;
    expect(retry.body).toEqual(metadata);
    expect(await count('select count(*)::int as n from api_keys where user_id = ? and name = ?', [agent.userId, 'once'])).toBe(1);
    const [row] = await app.em().execute('select * from idempotency_keys where idempotency_key = ?', [key]);
    expect(JSON.stringify(row)).not.toContain(first.body.key);
  });

  it('replays a key rotation without the new secret, and rotates once', async () => {
    const admin = await seedUserWithKey(app, { grants: ['users:*'] });
    const agent = await seedUserWithKey(app, { type: 'agent', grants: [] });
    const key = uniqueKey();
    const path = `/users/${agent.userId}/api-keys/${agent.keyId}/rotate`;
    const first = await withKey(admin.key, key).post(path, { overlapSeconds: 60 });
    expect(first.status).toBe(201);
    expect(first.body.key).toMatch(/^mk_/);
    const retry = await withKey(admin.key, key).post(path, { overlapSeconds: 60 });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const { key: _secret, ...metadata } = first.body;
    expect(retry.body).toEqual(metadata);
    expect(await count('select count(*)::int as n from api_keys where rotated_from_id = ?', [agent.keyId])).toBe(1);
    const [row] = await app.em().execute('select * from idempotency_keys where idempotency_key = ?', [key]);
    expect(JSON.stringify(row)).not.toContain(first.body.key);
  });

  it('deletes kept answers once they expire, and the key then runs anew', async () => {
    const key = uniqueKey();
    expect((await withKey(writer.key, key).post('/tensions', { name: 'Expiring', actorId })).status).toBe(201);
    const kept = () => count('select count(*)::int as n from idempotency_keys where idempotency_key = ?', [key]);
    const now = new Date();
    expect((await deleteExpired(app.em(), now, LOGIN_WINDOW_MS)).idempotencyKeys).toBe(0);
    expect(await kept()).toBe(1);
    const later = new Date(now.getTime() + IDEMPOTENCY_TTL_MS + 60_000);
    expect((await deleteExpired(app.em(), later, LOGIN_WINDOW_MS)).idempotencyKeys).toBeGreaterThanOrEqual(1);
    expect(await kept()).toBe(0);
    const afterExpiry = await withKey(writer.key, key).post('/tensions', { name: 'Expiring', actorId });
    expect(afterExpiry.headers.get('idempotent-replayed')).toBeNull();
    expect(await tensionsNamed('Expiring')).toBe(2);
  });

  it('gives the key back after a first attempt that failed on the server (5xx), so the retry runs', async () => {
    const key = uniqueKey();
    const body = { name: 'Failed once', type: 'organization' };
    failNextId = true;
    const failed = await withKey(writer.key, key).post('/actors', body);
    expect(failed.status).toBe(500);
    expect(await count('select count(*)::int as n from idempotency_keys where idempotency_key = ?', [key])).toBe(0);
    const retry = await withKey(writer.key, key).post('/actors', body);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await count('select count(*)::int as n from actors where name = ?', ['Failed once'])).toBe(1);
  });

  it('ignores the header on login, which is exempt', async () => {
    const res = await fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'x'.repeat(300) },
      body: JSON.stringify({ email: 'nobody@test.example', password: 'wrong-password-123' }),
    });
    expect(res.status).toBe(401);
    expect(await count('select count(*)::int as n from idempotency_keys where method = ? and path like ?', ['POST', '%login%'])).toBe(0);
  });
});

describe('GraphQL idempotencyKey', () => {
  const SENSE = `mutation ($input: SenseTensionInput!, $key: String) {
    senseTension(input: $input, idempotencyKey: $key) { tension { id name version } event { version type } }
  }`;

  it('answers a retried mutation with the first answer and writes once; other arguments under the key are refused', async () => {
    const gql = client(app, writer.key).gql;
    const key = uniqueKey();
    const input = { name: 'Sensed over GraphQL', actorId };
    const first = await gql(SENSE, { input, key });
    expect(first.body.errors).toBeUndefined();
    const retry = await gql(SENSE, { input, key });
    expect(retry.body).toEqual(first.body);
    expect(await tensionsNamed('Sensed over GraphQL')).toBe(1);
    expect(await eventsOf(first.body.data.senseTension.tension.id)).toBe(1);

    const other = await gql(SENSE, { input: { ...input, name: 'Other GraphQL' }, key });
    expect(other.body.errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await tensionsNamed('Other GraphQL')).toBe(0);
    // the same key on REST is another request too
    expect((await withKey(writer.key, key).post('/tensions', input)).body.code).toBe('idempotency_key_reused');
  });

  it('replays a refusal as the same error, and a key creation without the secret', async () => {
    const admin = await seedUserWithKey(app, { grants: ['users:*'] });
    const agent = await seedUserWithKey(app, { type: 'agent', grants: [] });
    const gql = client(app, admin.key).gql;
    const PROVISION = `mutation ($userId: ID!, $key: String) {
      provisionApiKey(userId: $userId, input: { name: "graphql once" }, idempotencyKey: $key) { id name prefix key }
    }`;
    const key = uniqueKey();
    const first = await gql(PROVISION, { userId: agent.userId, key });
    expect(first.body.data.provisionApiKey.key).toMatch(/^mk_/);
    const retry = await gql(PROVISION, { userId: agent.userId, key });
    expect(retry.body.errors).toBeUndefined();
    expect(retry.body.data.provisionApiKey).toEqual({ ...first.body.data.provisionApiKey, key: null });
    expect(await count('select count(*)::int as n from api_keys where user_id = ?', [agent.userId])).toBe(2);

    const refusedKey = uniqueKey();
    const nobody = '00000000-0000-4000-8000-000000000000';
    const refused = await gql(PROVISION, { userId: nobody, key: refusedKey });
    expect(refused.body.errors[0].extensions.code).toBe('USER_NOT_FOUND');
    const again = await gql(PROVISION, { userId: nobody, key: refusedKey });
    expect(again.body.errors[0].extensions).toEqual(refused.body.errors[0].extensions);
    expect(again.body.errors[0].message).toBe(refused.body.errors[0].message);
  });

  it('refuses a malformed idempotencyKey', async () => {
    const res = await client(app, writer.key).gql(SENSE, { input: { name: 'Bad GraphQL key', actorId }, key: '' });
    expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(await tensionsNamed('Bad GraphQL key')).toBe(0);
  });
});

describe('MCP idempotencyKey', () => {
  it('answers a retried write tool with the first result, flagged as replayed, and writes once', async () => {
    const mcp = await mcpHttpClient(app, writer.key);
    try {
      const call = async (name: string, args: Record<string, unknown>) => (await mcp.callTool({ name, arguments: args })) as CallToolResult;
      const key = uniqueKey();
      const args = { name: 'Sensed over MCP', actorId, idempotencyKey: key };
      const first = await call('sense_tension', args);
      expect(first.isError).toBeFalsy();
      expect(first._meta?.idempotentReplayed).toBeUndefined();
      const retry = await call('sense_tension', args);
      expect(retry._meta?.idempotentReplayed).toBe(true);
      expect(retry.structuredContent).toEqual(first.structuredContent);
      expect(await tensionsNamed('Sensed over MCP')).toBe(1);

      const other = await call('sense_tension', { ...args, name: 'Other MCP' });
      expect(other.isError).toBe(true);
      expect(other.structuredContent).toMatchObject({ code: 'idempotency_key_reused' });
      expect(await tensionsNamed('Other MCP')).toBe(0);

      // a command tool and a refused first attempt: the refusal is the kept answer
      const tensionId = (first.structuredContent as { tension: { id: string } }).tension.id;
      const stale = { id: tensionId, name: 'Late rename', expectedVersion: 7, idempotencyKey: uniqueKey() };
      const refused = await call('rename_tension', stale);
      expect(refused.structuredContent).toMatchObject({ code: 'version_conflict', currentVersion: 1 });
      const refusedAgain = await call('rename_tension', stale);
      expect(refusedAgain.isError).toBe(true);
      expect(refusedAgain.structuredContent).toEqual(refused.structuredContent);
      expect(refusedAgain._meta?.idempotentReplayed).toBe(true);

      const bad = await call('sense_tension', { name: 'Bad MCP key', actorId, idempotencyKey: '' });
      expect(bad.structuredContent).toMatchObject({ code: 'validation_failed' });
      expect(await tensionsNamed('Bad MCP key')).toBe(0);
    } finally {
      await mcp.close();
    }
  });
});

describe.skipIf(!onPostgres)('two instances on one PostgreSQL database (the embedded database is single-process by design)', () => {
  let pair: TwoInstances;
  let db: TestDatabase;
  let a: ProcessApi;
  let b: ProcessApi;

  beforeAll(async () => {
    pair = await startTwoInstances();
    ({ db, a, b } = pair);
  }, 150_000);
  afterAll(async () => {
    await pair?.stop();
  });

  it('runs a key once whichever instance the duplicates reach, and replays it on the other', async () => {
    const actor = await a.call('POST', '/actors', { name: 'Shared retry org', type: 'organization' });
    expect(actor.status).toBe(201);
    const key = uniqueKey();
    const body = { name: 'Raced across instances', actorId: actor.body.id };
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? b : a).call('POST', '/tensions', body, { 'idempotency-key': key })));
    const statuses = answers.map((r) => r.status);
    const created = answers.filter((r) => r.status === 201);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      JSON.stringify(statuses),
    ).toBe(true);
    for (const r of answers.filter((x) => x.status === 409)) expect(r.body.code).toBe('idempotency_in_progress');
    const ids = new Set(created.map((r) => r.body.tension.id));
    expect(ids.size).toBe(1);

    const replayed = await b.call('POST', '/tensions', body, { 'idempotency-key': key });
    expect(replayed.status).toBe(201);
    expect(replayed.body.tension.id).toBe([...ids][0]);
    const [{ n }] = await db.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from tensions where name = ?', [body.name]);
    expect(n).toBe(1);
  }, 60_000);
});
