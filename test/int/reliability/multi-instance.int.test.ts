// Two server processes on one PostgreSQL database: concurrent commands on the same tensions stay
// consistent, and revoking a key or a session on one instance is refused by the other on the next request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, type TestDatabase } from '../../support/database.js';
import type { ServerProcess } from '../../support/process.js';
import { holdTensionRow } from '../../support/row-lock.js';
import {
  checkEventStore,
  CONSISTENT,
  dryRunRebuild,
  login,
  sessionApi,
  startTwoInstances,
  type ProcessApi,
  type TwoInstances,
} from '../../support/consistency.js';

const COMMANDS = 200;
const CONCURRENCY = 16;

let db: TestDatabase;
let instances: ServerProcess[];

describe.skipIf(!onPostgres)('two instances on one PostgreSQL database (the embedded database is single-process by design)', () => {
  let pair: TwoInstances;
  let a: ProcessApi;
  let b: ProcessApi;

  beforeAll(async () => {
    pair = await startTwoInstances();
    ({ db, instances, a, b } = pair);
  }, 150_000);
  afterAll(async () => {
    await pair?.stop();
  });

  it('concurrent commands through both: every answer 200 or 409, contiguous versions, projection equals a rebuild', async () => {
    const actor = await a.call('POST', '/actors', { name: 'Shared Org', type: 'organization' });
    expect(actor.status).toBe(201);
    const tensions: { id: string; version: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const t = await (i % 2 ? b : a).call('POST', '/tensions', { name: `Contended ${i}`, actorId: actor.body.id });
      expect(t.status).toBe(201);
      tensions.push({ id: t.body.tension.id, version: 1 });
    }

    const statuses: Record<number, number> = {};
    let appended = 0;

    // First a forced overlap: the first tension's row is held by another connection while eight commands
    // (four through each instance, no expectedVersion) arrive; they read one version and queue, so once
    // it is let go all but one must answer 409, whichever instance they came through.
    const held = await holdTensionRow(db.url!, tensions[0].id);
    const overlapping = Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? b : a).call('POST', `/tensions/${tensions[0].id}/rescore`, { score: i + 1 })));
    await held.waitForWaiters(2);
    await held.release();
    const overlapped = await overlapping;
    for (const res of overlapped) {
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (res.status === 200 && res.body.event) appended++;
      if (res.status === 200) tensions[0].version = Math.max(tensions[0].version, res.body.tension.version);
    }
    const conflicts = overlapped.filter((r) => r.status === 409);
    expect(conflicts.length, JSON.stringify(overlapped.map((r) => r.status))).toBeGreaterThan(0);
    for (const r of conflicts) expect(r.body).toMatchObject({ code: 'version_conflict', currentVersion: expect.any(Number) });
    let next = 0;
    const worker = async () => {
      while (next < COMMANDS) {
        const i = next++;
        const api = i % 2 ? b : a;
        const t = tensions[i % tensions.length];
        // half of them state the version they last saw, so stale writers are refused
        const expectedVersion = i % 4 < 2 ? { expectedVersion: t.version } : {};
        const [verb, body] = [
          ['rename', { name: `Name ${i}` }],
          ['rescore', { score: (i % 10) + 1 }],
          ['revise', { currentContext: `Context ${i}` }],
          ['resolve', {}],
          ['reopen', {}],
        ][i % 5] as [string, Record<string, unknown>];
        const res = await api.call('POST', `/tensions/${t.id}/${verb}`, { ...body, ...expectedVersion });
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status === 200) {
          if (res.body.event) appended++;
          t.version = Math.max(t.version, res.body.tension.version);
        } else {
          expect(res.body.code).toMatch(/^(version_conflict|invalid_transition)$/);
          if (res.body.currentVersion) t.version = Math.max(t.version, res.body.currentVersion);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    console.log(`multi-instance: ${COMMANDS + 8} commands through 2 instances, statuses ${JSON.stringify(statuses)}, ${appended} events appended, 5xx seen: 0`);
    expect(Object.keys(statuses).filter((s) => s !== '200' && s !== '409')).toEqual([]);
    expect(statuses[200]).toBeGreaterThan(0);

    const store = await checkEventStore(db.orm.em.fork());
    expect(store).toMatchObject(CONSISTENT);
    // every acknowledged event is stored once: 3 sensed + one per 200 that appended
    expect(store.events).toBe(3 + appended);
    for (const api of [a, b]) {
      const report = await dryRunRebuild(api);
      expect(report).toMatchObject({ streams: 3, events: 3 + appended, inserted: 0, updated: 0, deleted: 0, unchanged: 3 });
    }
  }, 120_000);

  it('a key revoked through one instance is refused by the other on the very next request', async () => {
    const agent = await a.call('POST', '/users', { type: 'agent', email: 'roaming-agent@test.example', name: 'Roaming agent' });
    expect(agent.status).toBe(201);
    const key = await a.call('POST', `/users/${agent.body.id}/api-keys`, { name: 'roaming' });
    expect(key.status).toBe(201);
    const asAgent = (url: string) => fetch(`${url}/api/v1/auth/me`, { headers: { authorization: `Bearer ${key.body.key}` } });
    expect((await asAgent(instances[1].url)).status).toBe(200);
    expect((await a.call('DELETE', `/users/${agent.body.id}/api-keys/${key.body.id}`)).status).toBe(204);
    const refused = await asAgent(instances[1].url);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect((await asAgent(instances[0].url)).status).toBe(401);
  });

  it('a session ended (logout) on one instance is refused by the other on the very next request', async () => {
    const onB = await login(instances[1].url);
    const onA = sessionApi(instances[0].url, onB.cookie);
    expect((await onA.call('GET', '/auth/me')).status).toBe(200);
    expect((await onB.call('POST', '/auth/logout')).status).toBe(204);
    const refused = await onA.call('GET', '/auth/me');
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('unauthenticated');
    // the other session (signed in on A) is untouched
    expect((await a.call('GET', '/auth/me')).status).toBe(200);
  });
});
