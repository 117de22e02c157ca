// SPEC §10 under NATS faults (issue 29), against private NATS servers the tests stop and start: an outage
// longer than the NATS client's default give-up (10 attempts, about 20 s) ends with every event published
// exactly once, in feed order; a relay that cannot publish hands its lease to a standby that can; a stream
// that already holds events past the checkpoint (acknowledgements lost with the connection) gets none of
// them twice, even past JetStream's duplicate window; the service starts and serves while NATS is down,
// and its relay publishes once NATS answers.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { emptyPostgresDatabase, onPostgres } from '../../support/database.js';
import { newActor, newTension } from '../../support/tensions.js';
import {
  deleteStream,
  expectExactlyOnceInOrder,
  NATS_URL,
  natsOrNull,
  privateNats,
  privateNatsUnavailable,
  streamMessages,
  testStream,
  type PrivateNats,
} from '../../support/nats.js';
import { relayName, startNatsRelay, subjectOf, type RelayOptions, type RunningRelay } from '../../../server/relay/nats-relay.js';
import { FEED_START, readFeed } from '../../../server/persistence/event-store.js';
import { toFeedEventView } from '../../../server/application/events/events.js';
import { startService } from '../../../server/main.js';
import { loadConfig } from '../../../server/config.js';
import { createLogger } from '../../../server/logger.js';
import { startEmbedded } from '../../../server/persistence/embedded.js';

const shared = await natsOrNull();
const skip = privateNatsUnavailable() ?? ('reason' in shared ? shared.reason : null);
if (skip) console.warn(`relay fault tests skipped: ${skip}`);
const nc = 'nc' in shared ? shared.nc : (null as unknown as NatsConnection);

/** Longer than the NATS client's default give-up: 10 reconnect attempts 2 s apart. */
const OUTAGE_MS = 24_000;

let app: TestApp;
let c: ReturnType<typeof client>;
let actorId: string;
const sharedStreams: string[] = [];
const servers: PrivateNats[] = [];

beforeAll(async () => {
  if (skip) return;
  app = await startTestApp();
  c = client(app, (await seedUserWithKey(app, { grants: ['tensions:*', 'actors:*'] })).key);
  actorId = await newActor(c, 'Relay faults org');
});
afterAll(async () => {
  for (const s of sharedStreams) await deleteStream(nc, s);
  await nc?.close();
  for (const s of servers) await s.close();
  await app?.close();
});

async function startedNats(): Promise<PrivateNats> {
  const n = await privateNats();
  servers.push(n);
  await n.start();
  return n;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 60_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 100))) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
  }
}

const allEvents = (): Promise<{ id: string }[]> => app.em().execute(`select id from domain_events order by transaction_id, position`);

const caughtUp = async (name: string) => {
  const [row] = await app
    .em()
    .execute(
      `select count(e.position)::int as behind from feed_relays r left join domain_events e on (e.transaction_id, e.position) > (r.transaction_id, r.position) where r.name = ? group by r.name`,
      [name],
    );
  return row && row.behind === 0;
};

const leaseHolder = async (name: string): Promise<string | undefined> =>
  (await app.em().execute(`select holder from feed_relays where name = ? and lease_until > clock_timestamp()`, [name]))[0]?.holder;

/** Every message of a stream on another server. */
async function messagesAt(url: string, stream: string) {
  const conn = await connect({ servers: url, reconnect: false });
  try {
    return await streamMessages(conn, stream);
  } finally {
    await conn.close();
  }
}

const metricsText = async (url: string) => (await fetch(`${url}/metrics`)).text();
const gauge = (text: string, metric: string, relay: string) => new RegExp(`^${metric}\\{relay="${relay}"\\} (\\S+)$`, 'm').exec(text)?.[1];

const relayOptions = (natsUrl: string, stream: string, prefix: string, leaseMs = 3_000): RelayOptions => ({
  orm: app.db.orm,
  logger: app.deps.logger,
  natsUrl,
  subjectPrefix: prefix,
  stream,
  leaseMs,
  batch: 4,
  reconnectWaitMs: 250,
  publishTimeoutMs: 2_000,
  metrics: app.deps.metrics,
});

describe.skipIf(skip)('relay to NATS JetStream under faults', () => {
  it('NATS stopped for longer than the client’s default give-up: the lease is handed over, /metrics says so, and once NATS is back every event arrives exactly once, in feed order', async () => {
    const nats = await startedNats();
    const { stream, prefix } = testStream();
    const name = relayName(stream);
    for (let i = 0; i < 3; i++) await newTension(c, { name: `Before ${i}`, actorId });
    const relay = await startNatsRelay(relayOptions(nats.url, stream, prefix));
    try {
      await waitFor('the relay active', () => relay.active());
      await waitFor('caught up', () => caughtUp(name));

      await nats.stop();
      const outageEnds = Date.now() + OUTAGE_MS;
      // Written during the outage, spread over it.
      const during: string[] = [];
      while (Date.now() < outageEnds) {
        const t = await newTension(c, { name: `During ${during.length}`, actorId });
        await c.post(`/tensions/${t.id}/rescore`, { score: 1 + (during.length % 10) });
        during.push(t.id);
        await new Promise((r) => setTimeout(r, 1_000));
      }
      // Soft: what the outage looked like is reported with how it ended.
      expect.soft(await leaseHolder(name), 'no relay holds the lease while it cannot publish').toBeUndefined();
      expect.soft(relay.active()).toBe(false);
      const down = await metricsText(app.url);
      expect.soft(gauge(down, 'market_feed_relay_connected', name)).toBe('0');
      expect.soft(gauge(down, 'market_feed_relay_active', name)).toBe('0');
      expect.soft(Number(gauge(down, 'market_feed_relay_publish_failures_total', name))).toBeGreaterThanOrEqual(1);
      expect(await caughtUp(name), 'the outage’s events wait in the database').toBe(false);

      await nats.start();
      await waitFor('the relay active again', () => relay.active(), 30_000);
      await waitFor('caught up after the outage', () => caughtUp(name), 30_000);
      const up = await metricsText(app.url);
      expect(gauge(up, 'market_feed_relay_connected', name)).toBe('1');
      expect(gauge(up, 'market_feed_relay_active', name)).toBe('1');
      expectExactlyOnceInOrder(await messagesAt(nats.url, stream), await allEvents(), prefix);
    } finally {
      await relay.stop();
    }
  }, 120_000);

  it('a relay whose NATS is down stops renewing its lease: a standby whose NATS answers takes over and publishes from the checkpoint, each event once', async () => {
    const natsA = await startedNats();
    const { stream, prefix } = testStream();
    sharedStreams.push(stream);
    const name = relayName(stream);
    await newTension(c, { name: 'Before the takeover', actorId });
    // A lease longer than a publish may wait for its acknowledgement: A, were it to keep renewing while it
    // fails, would keep the lease for ever.
    const a = await startNatsRelay(relayOptions(natsA.url, stream, prefix, 10_000));
    let b: RunningRelay | undefined;
    try {
      await waitFor('A active', () => a.active());
      await waitFor('caught up on A', () => caughtUp(name));
      b = await startNatsRelay(relayOptions(NATS_URL, stream, prefix, 10_000));
      await new Promise((r) => setTimeout(r, 1_500)); // B tries the lease and stands by
      expect(b.active(), 'B stands by while A publishes').toBe(false);
      const published = new Set((await allEvents()).map((e) => e.id));

      await natsA.stop();
      const after: string[] = [];
      for (let i = 0; i < 3; i++) after.push((await newTension(c, { name: `After A's NATS stopped ${i}`, actorId })).id);
      await waitFor('B took the lease over', () => b!.active(), 20_000);
      expect(await leaseHolder(name)).toBe(b.id);
      await waitFor('caught up through B', () => caughtUp(name));
      expect(a.active()).toBe(false);
      // B starts where A's checkpoint stood: every later event, once each, in feed order.
      const rest = (await allEvents()).filter((e) => !published.has(e.id));
      expectExactlyOnceInOrder(await streamMessages(nc, stream), rest, prefix);
      expect(rest.length).toBe(after.length);
    } finally {
      await a.stop();
      await b?.stop();
    }
  }, 120_000);

  it('a stream that already holds events past the checkpoint (their acknowledgements lost) gets none of them again, even after its duplicate window', async () => {
    const { stream, prefix } = testStream();
    sharedStreams.push(stream);
    const jsm = await jetstreamManager(nc);
    // A one-second duplicate window: what an outage longer than the default two minutes comes to.
    await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`], duplicate_window: 1_000_000_000 });
    for (let i = 0; i < 3; i++) await newTension(c, { name: `Stored ${i}`, actorId });
    // The first events of the feed as a relay publishes them, stored, with no checkpoint written.
    const page = await readFeed(app.em(), FEED_START, 2);
    const js = jetstream(nc);
    for (const e of page.events) {
      const view = toFeedEventView(e);
      await js.publish(subjectOf(prefix, view), JSON.stringify(view), { msgID: e.id });
    }
    await new Promise((r) => setTimeout(r, 1_500)); // past the duplicate window
    const relay = await startNatsRelay(relayOptions(NATS_URL, stream, prefix));
    try {
      await waitFor('caught up', () => caughtUp(relayName(stream)));
      expectExactlyOnceInOrder(await streamMessages(nc, stream), await allEvents(), prefix);
    } finally {
      await relay.stop();
    }
  }, 60_000);

  it('with NATS_URL on a dead port the service starts and serves /healthz, /readyz and /api/v1; its relay publishes once NATS answers', async () => {
    const nats = await privateNats(); // not started yet
    servers.push(nats);
    const { stream, prefix } = testStream();
    const name = relayName(stream);
    const dataDir = await mkdtemp(join(tmpdir(), 'relay-start-'));
    const pg = onPostgres ? await emptyPostgresDatabase() : undefined;
    const admin = { email: 'admin@relay-start.example', password: 'admin-password-relay-1' };
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      SESSION_SECRET: 'relay-start-session-secret-0123456789abcdef',
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      NATS_URL: nats.url,
      NATS_STREAM: stream,
      NATS_SUBJECT_PREFIX: prefix,
      RELAY_LEASE_MS: '3000',
      ...(pg ? { DATABASE_URL: pg.url } : {}),
    });
    const service = await startService(config, createLogger('silent'), {}, pg ? undefined : startEmbedded({ maxConnections: config.dbPoolMax + 2 }));
    try {
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${service.url}/readyz`)).status, 'the API does not need NATS').toBe(200);
      const login = await fetch(`${service.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(admin),
      });
      expect(login.status).toBe(200);
      const cookie = login.headers.get('set-cookie')!.split(';')[0];
      const post = (path: string, body: unknown) =>
        fetch(`${service.url}/api/v1${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie, 'x-csrf-protection': '1' },
          body: JSON.stringify(body),
        });
      const actor = await post('/actors', { name: 'Org', type: 'organization' });
      expect(actor.status).toBe(201);
      const sensed = await post('/tensions', { name: 'Written while NATS is down', actorId: (await actor.json()).id });
      expect(sensed.status).toBe(201);
      const tensionId = (await sensed.json()).tension.id as string;
      const down = await metricsText(service.url);
      expect(gauge(down, 'market_feed_relay_connected', name)).toBe('0');
      expect(gauge(down, 'market_feed_relay_active', name)).toBe('0');

      await nats.start();
      await waitFor('the relay active', async () => gauge(await metricsText(service.url), 'market_feed_relay_active', name) === '1', 30_000);
      const messages = await waitFor('the tension published', async () => {
        const m = await messagesAt(nats.url, stream).catch(() => []);
        return m.some((x) => x.body.streamId === tensionId) && m;
      });
      expect(messages.filter((m) => m.body.streamId === tensionId).map((m) => m.body.type)).toEqual(['TensionSensed']);
      expect(gauge(await metricsText(service.url), 'market_feed_relay_connected', name)).toBe('1');
    } finally {
      await service.close();
      await pg?.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
