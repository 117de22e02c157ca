// SPEC §10: the relay to NATS JetStream, against the real NATS server: every event published once, in
// feed order per tension, `Nats-Msg-Id` = event id, subject `<prefix>.<streamType>.<type>`; SIGKILL under
// load and restart loses nothing (duplicates absorbed); two relays: one publishes, the other takes over
// after the first dies. Skips, saying why, only when no NATS answers on 127.0.0.1:4222.
import type { ChildProcess } from 'node:child_process';
import type { NatsConnection } from '@nats-io/transport-node';
import { DiscardPolicy, jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { onPostgres } from '../../support/database.js';
import { spawnCli } from '../../support/process.js';
import { newActor, newTension } from '../../support/tensions.js';
import { deleteStream, NATS_URL, natsOrNull, streamMessages, testStream, type StoredMessage } from '../../support/nats.js';
import { relayName, startNatsRelay } from '../../../server/relay/nats-relay.js';

const nats = await natsOrNull();
if ('reason' in nats) console.warn(`relay tests skipped: ${nats.reason}`);
const nc = 'nc' in nats ? nats.nc : (null as unknown as NatsConnection);

let app: TestApp;
let c: ReturnType<typeof client>;
let actorId: string;
const streams: string[] = [];

beforeAll(async () => {
  if (!nc) return;
  app = await startTestApp();
  c = client(app, (await seedUserWithKey(app, { grants: ['tensions:*', 'actors:*'] })).key);
  actorId = await newActor(c, 'Relay org');
});
afterAll(async () => {
  for (const s of streams) await deleteStream(nc, s);
  await nc?.close();
  await app?.close();
});

async function allEvents(): Promise<{ id: string; stream_id: string; version: number; type: string }[]> {
  return app.em().execute(`select id, stream_id, version, type from domain_events order by transaction_id, position`);
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 100))) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
  }
}

/** Exactly the events of the store, once each, every tension's in version order. */
function expectPublishedExactlyOnce(messages: StoredMessage[], events: { id: string; stream_id: string; version: number; type: string }[], prefix: string) {
  expect(messages.map((m) => m.msgId)).toEqual(messages.map((m) => m.body.id));
  expect(new Set(messages.map((m) => m.body.id)).size, 'no event stored twice').toBe(messages.length);
  // in feed order: the store's (transaction id, position) order
  expect(messages.map((m) => m.body.id)).toEqual(events.map((e) => e.id));
  for (const m of messages) expect(m.subject).toBe(`${prefix}.tension.${m.body.type}`);
  const last = new Map<string, number>();
  for (const m of messages) {
    expect(m.body.version, `tension ${m.body.streamId}`).toBe((last.get(m.body.streamId) ?? 0) + 1);
    last.set(m.body.streamId, m.body.version);
  }
}

/** The relay's failed rounds so far, as /metrics counts them. */
const publishFailures = async (name: string) => {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  return Number(new RegExp(`^market_feed_relay_publish_failures_total\\{relay="${name}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
};

const checkpointCaughtUp = async (name: string) => {
  const [row] = await app
    .em()
    .execute(
      `select count(e.position)::int as behind from feed_relays r left join domain_events e on (e.transaction_id, e.position) > (r.transaction_id, r.position) where r.name = ? group by r.name`,
      [name],
    );
  return row && row.behind === 0;
};

describe.skipIf(!nc)('relay to NATS JetStream', () => {
  it('publishes every event once, in feed order per tension, with Nats-Msg-Id = id; creates the stream; lag reaches 0 in /metrics', async () => {
    const { stream, prefix } = testStream();
    streams.push(stream);
    for (let i = 0; i < 5; i++) {
      const t = await newTension(c, { name: `Relayed ${i}`, actorId });
      await c.post(`/tensions/${t.id}/rescore`, { score: 2 + i });
    }
    const relay = await startNatsRelay({
      orm: app.db.orm,
      logger: app.deps.logger,
      natsUrl: NATS_URL,
      subjectPrefix: prefix,
      stream,
      leaseMs: 5_000,
      batch: 4,
    });
    try {
      await waitFor('the relay active', async () => relay.active());
      const more = await newTension(c, { name: 'After start', actorId });
      await c.post(`/tensions/${more.id}/resolve`);
      await waitFor('the checkpoint at the head', () => checkpointCaughtUp(relayName(stream)));
      expectPublishedExactlyOnce(await streamMessages(nc, stream), await allEvents(), prefix);
      const metrics = await (await fetch(`${app.url}/metrics`)).text();
      expect(metrics).toContain(`market_feed_relay_lag_events{relay="${relayName(stream)}"} 0`);
    } finally {
      await relay.stop();
    }
  });

  it('the checkpoint never passes an event JetStream did not acknowledge: a stream that refuses new messages holds the relay back, lifting the limit lets it finish exactly once', async () => {
    const { stream, prefix } = testStream();
    streams.push(stream);
    for (let i = 0; i < 10; i++) await newTension(c, { name: `Held ${i}`, actorId });
    const events = await allEvents();
    const limit = events.length - 3;
    // A stream made by the operator beforehand, full after `limit` messages: JetStream refuses the rest (no ack).
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`], max_msgs: limit, discard: DiscardPolicy.New });
    const relay = await startNatsRelay({
      orm: app.db.orm,
      logger: app.deps.logger,
      natsUrl: NATS_URL,
      subjectPrefix: prefix,
      stream,
      leaseMs: 5_000,
      batch: 4,
      metrics: app.deps.metrics,
    });
    try {
      await waitFor('the stream full', async () => (await streamMessages(nc, stream)).length === limit);
      // a few refused rounds: the relay came back after the first refusal and was refused again
      await waitFor('a second refused round', async () => (await publishFailures(relayName(stream))) >= 2);
      const stored = new Set((await streamMessages(nc, stream)).map((m) => m.body.id));
      const [cp] = await app
        .em()
        .execute<{ transaction_id: string; position: string }[]>('select transaction_id::text, position::text from feed_relays where name = ?', [
          relayName(stream),
        ]);
      const covered = await app
        .em()
        .execute<{ id: string }[]>('select id from domain_events where (transaction_id, position) <= (?::xid8, ?::bigint) order by transaction_id, position', [
          cp.transaction_id,
          cp.position,
        ]);
      expect(covered.length, 'the checkpoint stopped short of the head').toBeLessThan(events.length);
      expect(covered.length, 'it advanced as far as acknowledged batches reach').toBeGreaterThan(0);
      expect(
        covered.filter((e) => !stored.has(e.id)),
        'every event at or before the checkpoint is in JetStream',
      ).toEqual([]);

      await jsm.streams.update(stream, { max_msgs: -1 });
      await waitFor('the checkpoint at the head', () => checkpointCaughtUp(relayName(stream)));
      expectPublishedExactlyOnce(await streamMessages(nc, stream), await allEvents(), prefix);
    } finally {
      await relay.stop();
    }
  });

  it.skipIf(!onPostgres)(
    'SIGKILL under load, then a restart: the stream holds every event exactly once, in feed order per tension',
    async () => {
      // PostgreSQL only: the relay runs as its own process, and the embedded database belongs to one process.
      const { stream, prefix } = testStream();
      streams.push(stream);
      const env = { DATABASE_URL: app.db.url!, NATS_URL, NATS_STREAM: stream, NATS_SUBJECT_PREFIX: prefix, RELAY_LEASE_MS: '2000' };
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push((await newTension(c, { name: `Kill ${i}`, actorId })).id);
      let writing = true;
      const writers = Promise.all(
        Array.from({ length: 4 }, async (_, w) => {
          for (let n = 0; writing || n < 10; n++) await c.post(`/tensions/${ids[(w + n) % ids.length]}/rescore`, { score: 1 + (n % 10) });
        }),
      );
      const first = spawnCli(['relay', 'nats'], env);
      await waitFor('some events published', async () => {
        const [row] = await app.em().execute(`select published from feed_relays where name = ?`, [relayName(stream)]);
        return row && Number(row.published) > 20;
      });
      first.kill('SIGKILL');
      await new Promise((r) => first.once('exit', r));
      const second = spawnCli(['relay', 'nats'], env);
      try {
        writing = false;
        await writers;
        await waitFor('the restarted relay at the head', () => checkpointCaughtUp(relayName(stream)));
        expectPublishedExactlyOnce(await streamMessages(nc, stream), await allEvents(), prefix);
      } finally {
        second.kill('SIGTERM');
        await new Promise((r) => second.once('exit', r));
      }
    },
    180_000,
  );

  it.skipIf(!onPostgres)(
    'two relays on one database: one publishes, the other takes over after the first is killed',
    async () => {
      const { stream, prefix } = testStream();
      streams.push(stream);
      const env = { DATABASE_URL: app.db.url!, NATS_URL, NATS_STREAM: stream, NATS_SUBJECT_PREFIX: prefix, RELAY_LEASE_MS: '2000' };
      const relays: ChildProcess[] = [spawnCli(['relay', 'nats'], env), spawnCli(['relay', 'nats'], env)];
      const holder = async () =>
        (await app.em().execute(`select holder from feed_relays where name = ? and lease_until > clock_timestamp()`, [relayName(stream)]))[0]?.holder as
          string | undefined;
      try {
        const firstHolder = await waitFor('a lease holder', holder);
        await waitFor('caught up', () => checkpointCaughtUp(relayName(stream)));
        // only one holds it, and it keeps it while alive: past the end of the lease it held when first seen, still the holder
        const [{ until }] = await app.em().execute(`select lease_until::text as until from feed_relays where name = ?`, [relayName(stream)]);
        await waitFor(
          'past the first lease',
          async () => (await app.em().execute(`select clock_timestamp() > ?::timestamptz as past`, [until]))[0].past as boolean,
        );
        expect(await holder()).toBe(firstHolder);
        const pid = Number(firstHolder.split(':')[1]);
        const active = relays.find((p) => p.pid === pid)!;
        expect(active, 'the holder is one of the two relays').toBeDefined();
        active.kill('SIGKILL');
        await new Promise((r) => active.once('exit', r));
        const secondHolder = await waitFor('a new holder', async () => {
          const h = await holder();
          return h && h !== firstHolder ? h : undefined;
        });
        expect(Number(secondHolder.split(':')[1])).toBe(relays.find((p) => p !== active)!.pid);
        const t = await newTension(c, { name: 'After the takeover', actorId });
        await waitFor('published by the standby', () => checkpointCaughtUp(relayName(stream)));
        const messages = await streamMessages(nc, stream);
        expect(messages.some((m) => m.body.streamId === t.id)).toBe(true);
        expectPublishedExactlyOnce(messages, await allEvents(), prefix);
      } finally {
        for (const p of relays) if (p.exitCode === null) p.kill('SIGKILL');
      }
    },
    120_000,
  );
});
