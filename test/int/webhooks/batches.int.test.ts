// First attempts in batches (SPEC §14, issue 33's benchmark): a lane claims several first attempts at once
// and keeps several in flight, yet starts them in feed order and never sends two events of one stream at
// once; two instances whose leases run out all the time share an endpoint without sending a first attempt twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { newActor, newTension } from '../../support/tensions.js';
import { dispatcher, startReceiver, testClock, until, type Receiver } from '../../support/webhooks.js';
import { PER_ENDPOINT } from '../../../server/application/webhooks/sender.js';

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

const streamOf = (body: string): string => JSON.parse(body).data.streamId;
const eventCount = async () => (await app.em().execute<{ n: number }[]>('select count(*)::int as n from domain_events'))[0].n;
/** The events after the first `skip`, in feed order. */
const eventsAfter = (skip: number): Promise<{ id: string }[]> =>
  app.em().execute('select id from domain_events order by transaction_id, position offset ?', [skip]);

describe('first attempts in batches', () => {
  it('keeps several in flight, starts them in feed order and never two of one stream at once', { timeout: 120_000 }, async () => {
    // the receiver answers after 30 ms and notes what was in flight when each request came
    const inFlight = new Map<string, number>();
    let most = 0;
    let total = 0;
    const overlaps: string[] = [];
    const r = await startReceiver((req) => {
      const stream = streamOf(req.body);
      if (inFlight.has(stream)) overlaps.push(stream);
      inFlight.set(stream, (inFlight.get(stream) ?? 0) + 1);
      most = Math.max(most, ++total);
      // released before the answer is written (a timer set first runs first), so a next request of the stream never looks early
      setTimeout(() => {
        total--;
        const n = (inFlight.get(stream) ?? 1) - 1;
        if (n > 0) inFlight.set(stream, n);
        else inFlight.delete(stream);
      }, 30);
      return { status: 204, delayMs: 30 };
    });
    receivers.push(r);
    const before = await eventCount();
    const created = await api.post('/webhooks', { url: r.url });
    expect(created.status).toBe(201);
    // 6 tensions, then each rescored 5 times in turn: the feed interleaves the streams, a backlog to send in batches
    const actorId = await newActor(api, 'Batch Org');
    const tensions: string[] = [];
    for (let i = 0; i < 6; i++) tensions.push((await newTension(api, { name: `Batch ${i}`, actorId })).id);
    for (let round = 0; round < 5; round++)
      for (const id of tensions) expect((await api.post(`/tensions/${id}/rescore`, { score: round + 2 })).status).toBe(200);
    const events = await eventsAfter(before);

    // the real clock: each claim's time is kept, so the order of the claims shows
    const run = dispatcher(app.db.orm, { clock: () => new Date() });
    try {
      await until(() => r.received.length >= events.length, 'every event', 60_000);
    } finally {
      await run.stop();
    }
    expect(r.ids()).toHaveLength(events.length);
    expect(new Set(r.ids())).toEqual(new Set(events.map((e) => e.id)));
    // several at once, at most PER_ENDPOINT
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(PER_ENDPOINT);
    expect(overlaps).toEqual([]);
    // each stream's events arrived in version order
    const seen = new Map<string, number>();
    for (const m of r.received) {
      const { data } = JSON.parse(m.body);
      expect(data.version).toBe((seen.get(data.streamId) ?? 0) + 1);
      seen.set(data.streamId, data.version);
    }
    // claimed in feed order: a later delivery was never claimed before an earlier one
    const claims: { seq: string; at: Date }[] = await app
      .em()
      .execute('select seq, last_attempt_at as at from webhook_deliveries where endpoint_id = ? order by seq', [created.body.id]);
    expect(claims).toHaveLength(events.length);
    for (let i = 1; i < claims.length; i++) expect(new Date(claims[i].at).getTime()).toBeGreaterThanOrEqual(new Date(claims[i - 1].at).getTime());
  });

  it('two instances whose leases run out at every round share an endpoint: no first attempt twice', { timeout: 120_000 }, async () => {
    const r = await startReceiver(() => ({ status: 204, delayMs: 5 }));
    receivers.push(r);
    const before = await eventCount();
    const created = await api.post('/webhooks', { url: r.url });
    expect(created.status).toBe(201);
    // a 1 ms lease: each round of either instance finds the lane expired and takes it, so both claim the endpoint's first attempts
    const a = dispatcher(app.db.orm, { clock: time.clock, leaseMs: 1, pollMs: 5 });
    const b = dispatcher(app.db.orm, { clock: time.clock, leaseMs: 1, pollMs: 5 });
    const actorId = await newActor(api, 'Lease Org');
    const tensions = await Promise.all(Array.from({ length: 8 }, (_, i) => newTension(api, { name: `Lease ${i}`, actorId })));
    await Promise.all(
      tensions.map(async (t, w) => {
        for (let i = 0; i < 6; i++) await api.post(`/tensions/${t.id}/rescore`, { score: ((w + i) % 9) + 1 });
      }),
    );
    const row = { n: (await eventCount()) - before };
    try {
      await until(() => r.received.length >= row.n, 'every event', 60_000);
      // a moment more: nothing arrives twice
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    expect(r.received.length).toBe(row.n);
    expect(new Set(r.ids()).size).toBe(row.n);
    const deliveries = await app
      .em()
      .execute<{ attempts: number; status: string }[]>('select attempts, status from webhook_deliveries where endpoint_id = ?', [created.body.id]);
    expect(deliveries.every((d) => d.attempts === 1 && d.status === 'succeeded')).toBe(true);
  });
});
