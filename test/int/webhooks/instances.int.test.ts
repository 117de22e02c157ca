// Nothing lost, no first attempt twice (SPEC §14): two dispatchers share one database; a server process
// killed with SIGKILL while deliveries are pending delivers every event after its restart.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../../support/database.js';
import { startServerProcess, type ServerProcess } from '../../support/process.js';
import { login, PROCESS_ADMIN, PROCESS_SECRET } from '../../support/consistency.js';
import { newActor, newTension } from '../../support/tensions.js';
import { dispatcher, startReceiver, testClock, until, type Receiver } from '../../support/webhooks.js';
import { PER_ENDPOINT } from '../../../server/application/webhooks/sender.js';

describe('two dispatchers on one database', () => {
  let app: TestApp;
  const receivers: Receiver[] = [];
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await app?.close();
  });

  it('share the endpoints and the retries, and no first attempt runs twice, also when one stops halfway', { timeout: 120_000 }, async () => {
    const time = testClock();
    app = await startTestApp({ webhookAllowPrivate: true }, { clock: time.clock });
    const api = client(app, (await seedUserWithKey(app, { grants: ['*'] })).key);
    for (let i = 0; i < 4; i++) {
      // the last one fails its first attempt, so its events are retried by whichever dispatcher claims them
      const failedOnce = new Set<string>();
      const r = await startReceiver((req) => {
        const id = String(req.headers['webhook-id']);
        if (i < 3 || failedOnce.has(id)) return { status: 200, delayMs: 5 };
        failedOnce.add(id);
        return { status: 500 };
      });
      receivers.push(r);
      expect((await api.post('/webhooks', { url: r.url })).status).toBe(201);
    }
    const a = dispatcher(app.db.orm, { clock: time.clock, leaseMs: 1_000 });
    const b = dispatcher(app.db.orm, { clock: time.clock, leaseMs: 1_000 });
    const actorId = await newActor(api, 'Two Org');
    for (let i = 0; i < 30; i++) await newTension(api, { name: `Two ${i}`, actorId });
    await until(() => receivers[0].received.length >= 10, 'some deliveries');
    await a.stop();
    for (let i = 30; i < 40; i++) await newTension(api, { name: `Two ${i}`, actorId });
    const events: { id: string }[] = await app.em().execute('select id from domain_events');
    await until(() => receivers.slice(0, 3).every((r) => new Set(r.ids()).size === events.length), 'every event on the healthy receivers', 60_000);
    await until(() => receivers[3].received.length >= events.length, 'every first attempt on the failing receiver', 60_000);
    // The receiver counts a request before its answer reaches the dispatcher, which then reads the clock for the retry's
    // time: move the clock only once every failed first attempt is recorded, or a retry is due after the only move.
    await until(
      async () => {
        const [row] = await app
          .em()
          .execute<{ n: number }[]>(
            `select count(*)::int as n from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id where e.url = ? and d.attempts >= 1 and d.status <> 'pending'`,
            [receivers[3].url],
          );
        return row.n >= events.length;
      },
      'every failed first attempt recorded',
      60_000,
    );
    time.advance(5_000);
    await until(
      async () => {
        const [row] = await app.em().execute<{ n: number }[]>(`select count(*)::int as n from webhook_deliveries where status <> 'succeeded'`);
        return row.n === 0;
      },
      'every retry succeeded',
      60_000,
    );
    await b.stop();
    for (const r of receivers.slice(0, 3)) expect(r.ids().sort()).toEqual(events.map((e) => e.id).sort());
    const firsts: { attempts: number }[] = await app
      .em()
      .execute(`select d.attempts from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id where e.url = ?`, [receivers[3].url]);
    expect(firsts.every((d) => d.attempts >= 1)).toBe(true);
    // the failing receiver saw each event once failed (first attempt) and once succeeded: never a first attempt twice
    expect(receivers[3].received.length).toBe(2 * events.length);
  });
});

describe(`a server killed with SIGKILL while deliveries are pending (${onPostgres ? 'PostgreSQL' : 'embedded database'})`, () => {
  let db: TestDatabase | undefined;
  let dataDir: string;
  let receiver: Receiver;
  const running: ServerProcess[] = [];
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'webhooks-crash-'));
    if (onPostgres) db = await createTestDatabase({ poolMax: 2 });
    receiver = await startReceiver(() => ({ status: 200, delayMs: 40 }));
  });
  afterAll(async () => {
    for (const p of running) await p.kill();
    await receiver?.close();
    await db?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('delivers every event after the restart, none lost', { timeout: 300_000 }, async () => {
    const env = {
      DATA_DIR: dataDir,
      SESSION_SECRET: PROCESS_SECRET,
      ADMIN_EMAIL: PROCESS_ADMIN.email,
      ADMIN_PASSWORD: PROCESS_ADMIN.password,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_LEASE_MS: '1000',
      ...(db ? { DATABASE_URL: db.url! } : {}),
    };
    const first = await startServerProcess(env);
    running.push(first);
    const api = await login(first.url);
    expect((await api.call('POST', '/webhooks', { url: receiver.url })).status).toBe(201);
    const actor = await api.call('POST', '/actors', { name: 'Crash Org', type: 'organization' });
    for (let i = 0; i < 40; i++) expect((await api.call('POST', '/tensions', { name: `Crash ${i}`, actorId: actor.body.id })).status).toBe(201);
    await until(() => receiver.received.length >= 3, 'the first deliveries', 60_000);
    await first.kill();
    const atKill = receiver.received.length;

    const second = await startServerProcess(env);
    running.push(second);
    // every event the feed holds (the embedded database is single-process: ask the server)
    const feed = await (await login(second.url)).call('GET', '/events?limit=1000');
    expect(feed.status).toBe(200);
    const expected = feed.body.data.length;
    expect(expected).toBe(40);
    await until(() => new Set(receiver.ids()).size >= expected, `every event delivered (${atKill} before the kill)`, 120_000).catch((err: Error) => {
      throw new Error(`${err.message}; got ${new Set(receiver.ids()).size} of ${expected}\n${second.output()}`);
    });
    expect(atKill).toBeLessThan(expected);
    await second.stop();
    const events: { id: string }[] = feed.body.data;
    expect([...new Set(receiver.ids())].sort()).toEqual(events.map((e) => e.id).sort());
    // at least once: only what was in flight at the kill (at most PER_ENDPOINT attempts to one endpoint) may come twice
    expect(receiver.received.length - events.length).toBeLessThanOrEqual(PER_ENDPOINT);
  });
});
