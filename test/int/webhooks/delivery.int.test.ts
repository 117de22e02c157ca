// Webhook delivery (SPEC §14) with real receivers on 127.0.0.1 and the real dispatcher: every event exactly
// once as a first attempt under concurrent writers, signatures a Standard Webhooks receiver verifies, `types`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { newActor, newTension } from '../../support/tensions.js';
import { dispatcher, startReceiver, testClock, until, verifies, type Receiver } from '../../support/webhooks.js';
import type { RunningDispatcher } from '../../../server/application/webhooks/dispatcher.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let all: Receiver;
let rescoresOnly: Receiver;
let run: RunningDispatcher;
const time = testClock();

beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true }, { clock: time.clock });
  const admin = await seedUserWithKey(app, { grants: ['*'] });
  api = client(app, admin.key);
  all = await startReceiver();
  rescoresOnly = await startReceiver();
});
afterAll(async () => {
  await run?.stop();
  await all?.close();
  await rescoresOnly?.close();
  await app?.close();
});

describe('delivery', () => {
  it(
    'delivers every event exactly once as a first attempt while 8 writers append to 50 tensions; every signature verifies; types filter',
    { timeout: 120_000 },
    async () => {
      const everything = await api.post('/webhooks', { url: all.url, description: 'everything' });
      expect(everything.status, JSON.stringify(everything.body)).toBe(201);
      expect(everything.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const filtered = await api.post('/webhooks', { url: rescoresOnly.url, types: ['TensionRescored'] });
      expect(filtered.status).toBe(201);
      run = dispatcher(app.db.orm, { clock: time.clock, metrics: app.deps.metrics });

      const actorId = await newActor(api, 'Webhook Org');
      const tensions: string[] = [];
      for (let i = 0; i < 50; i++) tensions.push((await newTension(api, { name: `T${i}`, actorId })).id);
      await Promise.all(
        Array.from({ length: 8 }, async (_, w) => {
          for (let i = 0; i < 10; i++) {
            const id = tensions[(w * 10 + i * 7) % 50];
            // a 409 from a concurrent writer appends nothing: the feed decides what is expected below
            await api.post(`/tensions/${id}/rescore`, { score: ((w + i) % 10) + 1 });
          }
        }),
      );
      const written = Date.now();
      const events: { id: string; type: string }[] = await app.em().execute(`select id, type from domain_events order by transaction_id, position`);
      const rescores = events.filter((e) => e.type === 'TensionRescored');
      expect(rescores.length).toBeGreaterThan(10);
      await until(() => all.received.length >= events.length && rescoresOnly.received.length >= rescores.length, 'every event delivered');
      console.log(`webhooks: ${events.length} events written, all delivered ${Date.now() - written} ms after the last commit`);
      // a moment more: nothing arrives twice
      await new Promise((r) => setTimeout(r, 300));

      expect(all.ids().sort()).toEqual(events.map((e) => e.id).sort());
      expect(rescoresOnly.ids().sort()).toEqual(rescores.map((e) => e.id).sort());
      for (const r of all.received) expect(verifies(everything.body.secret, r)).toBe(true);
      for (const r of rescoresOnly.received) expect(verifies(filtered.body.secret, r)).toBe(true);
      // another endpoint's secret does not verify
      expect(verifies(filtered.body.secret, all.received[0])).toBe(false);

      // each stream's events arrive in version order (first attempts follow feed order per endpoint)
      const seen = new Map<string, number>();
      for (const r of all.received) {
        const body = JSON.parse(r.body);
        expect(body.type).toBe(body.data.type);
        expect(r.headers['content-type']).toBe('application/json');
        expect(Number(r.headers['webhook-timestamp'])).toBeGreaterThan(0);
        expect(body.data.version).toBe((seen.get(body.data.streamId) ?? 0) + 1);
        seen.set(body.data.streamId, body.data.version);
      }

      const deliveries = await app.em().execute<{ attempts: number; status: string }[]>(`select attempts, status from webhook_deliveries`);
      expect(deliveries.length).toBe(events.length + rescores.length);
      expect(deliveries.every((d) => d.attempts === 1 && d.status === 'succeeded')).toBe(true);

      const log = await api.get(`/webhooks/${everything.body.id}/deliveries?limit=100`);
      expect(log.status).toBe(200);
      expect(log.body.data[0]).toMatchObject({ attempts: 1, status: 'succeeded', lastResponseStatus: 204, lastError: null, nextAttemptAt: null });
      expect(log.body.nextCursor).toEqual(expect.any(String));
      // /metrics: attempts by outcome, latency, and each endpoint's backlog (none left) and oldest pending age
      const metrics = await (await fetch(`${app.url}/metrics`)).text();
      expect(metrics).toContain(`market_webhook_attempts_total{outcome="succeeded"} ${events.length + rescores.length}`);
      expect(metrics).toContain(`market_webhook_attempt_duration_seconds_count{outcome="succeeded"} ${events.length + rescores.length}`);
      expect(metrics).toContain(`market_webhook_backlog{endpoint="${everything.body.id}"} 0`);
      expect(metrics).toContain(`market_webhook_oldest_pending_seconds{endpoint="${filtered.body.id}"} 0`);
      // deliveries by outcome, and the commit → receiver lag of each (this clock stands still: 0 s, the first bucket)
      expect(metrics).toContain(`market_webhook_deliveries_total{outcome="succeeded"} ${events.length + rescores.length}`);
      expect(metrics).toContain(`market_webhook_delivery_lag_seconds_count ${events.length + rescores.length}`);
      expect(metrics).toContain(`market_webhook_delivery_lag_seconds_bucket{le="0.01"} ${events.length + rescores.length}`);
      const more = await api.get(`/webhooks/${everything.body.id}/deliveries?limit=100&cursor=${encodeURIComponent(log.body.nextCursor)}`);
      expect(more.status).toBe(200);
      expect(new Set([...log.body.data, ...more.body.data].map((d: { id: string }) => d.id)).size).toBe(log.body.data.length + more.body.data.length);
    },
  );
});
