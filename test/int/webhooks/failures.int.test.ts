// Failing receivers (SPEC §14): retried on the schedule with a clock the test controls, 410 disables at
// once, five days of nothing but failures disable, timeouts and refused connections are failures,
// redirects are not followed, and at most 1 KB of an answer is kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { freePort } from '../../support/process.js';
import { dispatcher, startReceiver, testClock, until, type Answer, type Receiver } from '../../support/webhooks.js';
import { RETRY_SCHEDULE_MS, type RunningDispatcher } from '../../../server/application/webhooks/dispatcher.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let run: RunningDispatcher;
const receivers: Receiver[] = [];
const time = testClock();

beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true }, { clock: time.clock });
  api = client(app, (await seedUserWithKey(app, { grants: ['*'] })).key);
  // 3 s: short enough for the hanging receiver's test, long enough for an answering receiver in this process
  // on a loaded machine (at 0.5 s the 500 test once read "no answer" on the embedded lane at load 15)
  run = dispatcher(app.db.orm, { clock: time.clock, timeoutMs: 3_000, metrics: app.deps.metrics });
});
afterAll(async () => {
  await run?.stop();
  for (const r of receivers) await r.close();
  await app?.close();
});

async function receiver(answer: (n: number) => Answer): Promise<Receiver> {
  const r = await startReceiver((req) => answer(req.n));
  receivers.push(r);
  return r;
}

async function endpoint(url: string): Promise<string> {
  const res = await api.post('/webhooks', { url });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function sendTest(id: string): Promise<string> {
  const res = await api.post(`/webhooks/${id}/test`);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body).toMatchObject({ eventType: 'webhook.test', attempts: 0, status: 'pending' });
  return res.body.id;
}

async function delivery(endpointId: string, deliveryId: string) {
  const res = await api.get(`/webhooks/${endpointId}/deliveries`);
  return res.body.data.find((d: { id: string }) => d.id === deliveryId);
}

/** Waits until the delivery's attempt `n` is recorded (its outcome, not only its start). */
async function attempted(endpointId: string, deliveryId: string, n: number) {
  await until(async () => {
    const d = await delivery(endpointId, deliveryId);
    return d.attempts === n && d.status !== 'pending' && d.lastAttemptAt !== null && (d.lastError !== null || d.status === 'succeeded');
  }, `attempt ${n}`);
  return delivery(endpointId, deliveryId);
}

const quiet = () => new Promise((r) => setTimeout(r, 250));

describe('a failing receiver', () => {
  it('500: retried on the schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), never early, then failed', { timeout: 60_000 }, async () => {
    const r = await receiver(() => ({ status: 500, body: 'boom' }));
    const id = await endpoint(r.url);
    const d = await sendTest(id);
    let seen = await attempted(id, d, 1);
    expect(seen).toMatchObject({ status: 'retrying', lastResponseStatus: 500, lastResponseBody: 'boom', lastError: 'answered 500' });
    for (let i = 0; i < RETRY_SCHEDULE_MS.length; i++) {
      expect(new Date(seen.nextAttemptAt).getTime() - time.now()).toBe(RETRY_SCHEDULE_MS[i]);
      time.advance(RETRY_SCHEDULE_MS[i] - 1);
      await quiet();
      expect(r.received.length, `attempt ${i + 2} came early`).toBe(i + 1);
      time.advance(1);
      seen = await attempted(id, d, i + 2);
    }
    expect(seen).toMatchObject({ attempts: 8, status: 'failed', nextAttemptAt: null });
    // every attempt is the same message
    expect(new Set(r.ids()).size).toBe(1);
    time.advance(86_400_000);
    await quiet();
    expect(r.received.length).toBe(8);
  });

  it('no answer within the timeout, or a refused connection: a failure, retried', async () => {
    const hang = await receiver(() => 'hang');
    const slow = await endpoint(hang.url);
    const d1 = await sendTest(slow);
    expect(await attempted(slow, d1, 1)).toMatchObject({ status: 'retrying', lastResponseStatus: null, lastError: 'no answer within 3 s' });

    const closed = await endpoint(`http://127.0.0.1:${await freePort()}/hook`);
    const d2 = await sendTest(closed);
    expect(await attempted(closed, d2, 1)).toMatchObject({ status: 'retrying', lastResponseStatus: null, lastError: 'connection failed: ECONNREFUSED' });
    time.advance(RETRY_SCHEDULE_MS[0]);
    expect(await attempted(closed, d2, 2)).toMatchObject({ status: 'retrying', lastError: 'connection failed: ECONNREFUSED' });
    expect(await attempted(slow, d1, 2)).toMatchObject({ status: 'retrying' });
    expect(hang.received.length).toBe(2);
  });

  it('410 Gone disables the endpoint at once, audited; nothing more is sent', async () => {
    const r = await receiver(() => ({ status: 410 }));
    const id = await endpoint(r.url);
    const d = await sendTest(id);
    await until(async () => (await api.get(`/webhooks/${id}`)).body.enabled === false, 'disabled');
    expect((await api.get(`/webhooks/${id}`)).body).toMatchObject({ enabled: false, disabledReason: 'gone' });
    expect(await delivery(id, d)).toMatchObject({ status: 'failed', lastResponseStatus: 410, nextAttemptAt: null });
    const audit = await api.get(`/audit?action=webhook.disabled&targetId=${id}`);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0].changes.disabledReason).toEqual({ from: null, to: 'gone' });
    expect((await api.post(`/webhooks/${id}/test`)).status).toBe(422);
    time.advance(86_400_000);
    await quiet();
    expect(r.received.length).toBe(1);
  });

  it('five days of nothing but failures disable it; a success in between starts the count again', { timeout: 60_000 }, async () => {
    let failing = true;
    const r = await receiver(() => (failing ? { status: 503 } : { status: 200 }));
    const id = await endpoint(r.url);
    const d1 = await sendTest(id);
    await attempted(id, d1, 1);
    const since = (await api.get(`/webhooks/${id}`)).body.failingSince;
    expect(new Date(since).getTime()).toBe(time.now());
    // four days on, one success: the run of failures ends
    time.advance(4 * 86_400_000);
    failing = false;
    const ok = await sendTest(id);
    await attempted(id, ok, 1);
    expect((await api.get(`/webhooks/${id}`)).body).toMatchObject({ enabled: true, failingSince: null });
    failing = true;
    const d2 = await sendTest(id);
    await attempted(id, d2, 1);
    // five days less a second after that failure: still enabled
    time.advance(5 * 86_400_000 - 1000);
    const d3 = await sendTest(id);
    await attempted(id, d3, 1);
    expect((await api.get(`/webhooks/${id}`)).body.enabled).toBe(true);
    time.advance(1000);
    const d4 = await sendTest(id);
    await attempted(id, d4, 1);
    expect((await api.get(`/webhooks/${id}`)).body).toMatchObject({ enabled: false, disabledReason: 'failing' });
  });

  it('a redirect is not followed; at most 1 KB of an answer is kept', async () => {
    const target = await receiver(() => ({ status: 200 }));
    const redirecting = await receiver(() => ({ status: 307, headers: { location: target.url } }));
    const id = await endpoint(redirecting.url);
    const d = await sendTest(id);
    expect(await attempted(id, d, 1)).toMatchObject({ status: 'retrying', lastResponseStatus: 307, lastError: 'answered 307: redirects are not followed' });
    await quiet();
    expect(target.received).toHaveLength(0);

    const chatty = await receiver(() => ({ status: 500, body: 'é'.repeat(5000) }));
    const cid = await endpoint(chatty.url);
    const cd = await sendTest(cid);
    const kept = await attempted(cid, cd, 1);
    expect(Buffer.byteLength(kept.lastResponseBody)).toBeLessThanOrEqual(1024);
    expect(kept.lastResponseBody.length).toBeGreaterThan(400);
  });

  it('/metrics: a delivery waiting for its retry is its endpoint backlog, aged by the clock; a delivery counts by outcome once it ends', async () => {
    // the other tests' endpoints go, so that only this one's attempts move the counters
    for (const e of (await api.get('/webhooks?limit=100')).body.data) expect((await api.del(`/webhooks/${e.id}`)).status).toBe(204);
    const scrape = async (series: string) => {
      const line = (await (await fetch(`${app.url}/metrics`)).text()).split('\n').find((l) => l.startsWith(`${series} `));
      return line ? Number(line.slice(series.length + 1)) : 0;
    };
    // an attempt of theirs already on its way ends within the dispatcher's 3 s timeout and still counts:
    // wait until the counters have not moved for longer than that (a fixed 250 ms once let one in, 23 for 22)
    const counters = async () =>
      `${await scrape('market_webhook_attempts_total{outcome="failed"}')} ${await scrape('market_webhook_deliveries_total{outcome="failed"}')}`;
    for (let last = await counters(), since = Date.now(); Date.now() - since < 3_500;) {
      await quiet();
      const now = await counters();
      if (now !== last) [last, since] = [now, Date.now()];
    }
    const failed = 'market_webhook_deliveries_total{outcome="failed"}';
    const before = { failed: await scrape(failed), attempts: await scrape('market_webhook_attempts_total{outcome="failed"}') };
    let answer = 500;
    const r = await receiver(() => ({ status: answer }));
    const id = await endpoint(r.url);
    const d = await sendTest(id);
    await attempted(id, d, 1);
    time.advance(4_000); // the retry is due at 5 s
    expect(await scrape(`market_webhook_backlog{endpoint="${id}"}`)).toBe(1);
    expect(await scrape(`market_webhook_oldest_pending_seconds{endpoint="${id}"}`)).toBe(4);
    expect(await scrape('market_webhook_attempts_total{outcome="failed"}')).toBe(before.attempts + 1);
    expect(await scrape(failed), 'a delivery still retrying has not ended').toBe(before.failed);

    answer = 410;
    time.advance(1_000);
    expect(await attempted(id, d, 2)).toMatchObject({ status: 'failed' });
    expect(await scrape(failed)).toBe(before.failed + 1);
    expect(await scrape(`market_webhook_backlog{endpoint="${id}"}`)).toBe(0);
    expect(await scrape(`market_webhook_oldest_pending_seconds{endpoint="${id}"}`)).toBe(0);
  });
});
