// What keeps the delivery table small (SPEC §14, issue 33): a first attempt is claimed without being
// counted until its outcome is written, so a claim whose run window passed without one (a crash) is
// claimed again, in feed order, and the late outcome of the first claim is not written over the new one;
// succeeded deliveries are deleted once they are older than the log keeps them, and no other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { newActor, newTension } from '../../support/tensions.js';
import { dispatcher, startReceiver, testClock, until, type Receiver } from '../../support/webhooks.js';
import { SUCCEEDED_KEPT_MS } from '../../../server/application/webhooks/dispatcher.js';

let app: TestApp;
let api: ReturnType<typeof client>;
const receivers: Receiver[] = [];
const time = testClock();

beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true }, { clock: time.clock });
  api = client(app, (await seedUserWithKey(app, { grants: ['*'] })).key);
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await app?.close();
});

const deliveriesOf = (endpointId: string) =>
  app
    .em()
    .execute<{ id: string; event_id: string; attempts: number; status: string }[]>(
      'select id, event_id, attempts, status from webhook_deliveries where endpoint_id = ? order by seq',
      [endpointId],
    );

describe('a first attempt whose claim ran out', () => {
  it('is claimed again in feed order by another instance, and the first claim’s late outcome is dropped', { timeout: 120_000 }, async () => {
    // the first request of all hangs (its dispatcher gives up after its timeout); every other one succeeds
    const r = await startReceiver((req) => (req.n === 1 ? 'hang' : { status: 204 }));
    receivers.push(r);
    const actorId = await newActor(api, 'Claim Org');
    const created = await api.post('/webhooks', { url: r.url });
    expect(created.status).toBe(201);
    const tension = await newTension(api, { name: 'Claimed', actorId });
    for (let score = 2; score <= 3; score++) expect((await api.post(`/tensions/${tension.id}/rescore`, { score })).status).toBe(200);

    // A claims the tension's first event and hangs on it; it stops (its lane's short lease runs out, its attempt goes on)
    const a = dispatcher(app.db.orm, { clock: time.clock, leaseMs: 200, timeoutMs: 4_000 });
    await until(() => r.received.length >= 1, 'the first request');
    const aStopped = a.stop();
    // past A's run window: B claims the event again (the stream's next ones wait behind it) and sends the three in order
    time.advance(60_000);
    const b = dispatcher(app.db.orm, { clock: time.clock, leaseMs: 200 });
    try {
      await until(async () => (await deliveriesOf(created.body.id)).every((d) => d.attempts === 1 && d.status === 'succeeded'), 'every delivery succeeded');
      // A's attempt times out now, and its outcome (a failure to retry) finds its claim taken
      await aStopped;
    } finally {
      await b.stop();
    }
    const rows = await deliveriesOf(created.body.id);
    expect(rows).toHaveLength(3);
    expect(rows.every((d) => d.attempts === 1 && d.status === 'succeeded')).toBe(true);
    const versions = r.received.map((m) => JSON.parse(m.body).data.version);
    expect(versions).toEqual([1, 1, 2, 3]);
    expect(r.ids().slice(1)).toEqual(rows.map((d) => d.event_id));
  });
});

describe('retention', () => {
  it(`deletes succeeded deliveries older than ${SUCCEEDED_KEPT_MS / 86_400_000} days, and keeps the others`, { timeout: 120_000 }, async () => {
    const ok = await startReceiver(() => ({ status: 204 }));
    const failing = await startReceiver(() => ({ status: 500 }));
    receivers.push(ok, failing);
    const actorId = await newActor(api, 'Old Org');
    const kept = await api.post('/webhooks', { url: ok.url });
    const failed = await api.post('/webhooks', { url: failing.url });
    expect([kept.status, failed.status]).toEqual([201, 201]);
    for (let i = 0; i < 3; i++) await newTension(api, { name: `Old ${i}`, actorId });

    const c = dispatcher(app.db.orm, { clock: time.clock });
    try {
      await until(async () => {
        const [mine, theirs] = await Promise.all([deliveriesOf(kept.body.id), deliveriesOf(failed.body.id)]);
        return mine.length === 3 && mine.every((d) => d.status === 'succeeded') && theirs.length === 3 && theirs.every((d) => d.attempts === 1);
      }, 'the first attempts recorded');
    } finally {
      await c.stop();
    }
    // switched off, so its retries wait through what follows as they are
    expect((await api.patch(`/webhooks/${failed.body.id}`, { enabled: false })).status).toBe(200);
    const before = await deliveriesOf(failed.body.id);
    expect(before.every((x) => x.status === 'retrying')).toBe(true);

    // a week and an hour later, one more event: the old successes go, the new one and every failure stay
    time.advance(SUCCEEDED_KEPT_MS + 3_600_000);
    const fresh = await newTension(api, { name: 'Fresh', actorId });
    const d = dispatcher(app.db.orm, { clock: time.clock });
    try {
      await until(async () => {
        const mine = await deliveriesOf(kept.body.id);
        return mine.length === 1 && mine[0].status === 'succeeded';
      }, 'the old successes deleted');
    } finally {
      await d.stop();
    }
    const log = await api.get(`/webhooks/${kept.body.id}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.body.data).toHaveLength(1);
    expect(ok.ids().at(-1)).toBe(log.body.data[0].eventId);
    const [event] = await app.em().execute<{ id: string }[]>('select id from domain_events where stream_id = ?', [fresh.id]);
    expect(log.body.data[0].eventId).toBe(event.id);
    expect(await deliveriesOf(failed.body.id)).toEqual(before);
  });
});
