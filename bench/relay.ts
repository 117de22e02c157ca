// The relay to NATS JetStream (`market-service relay nats`, the real CLI against the real NATS server):
// whether it keeps up with the service's maximum append rate (REST rescore at 8 connections), and its own
// rate draining a backlog written beforehand, against that append rate.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { wallClock, type HttpResult } from './http-load.js';
import type { BenchDatabase } from './lib/pg.js';
import { spawnCli, type ServiceEnv } from './lib/service.js';
import { fmt, median, ratioFigure, type Figure } from './report.js';
import { bulkStreams } from './setup.js';
import type { RecordedLoad } from './feed.js';

export interface RelayTarget {
  natsUrl: string;
  stream: string;
  subjectPrefix: string;
}

export interface RelayRound {
  /** REST rescore 8 connections without a relay: the maximum append rate */
  alone: HttpResult;
  /** the same with the relay running and a JetStream consumer timing every event */
  relayed: HttpResult;
  lagP50: number;
  lagP99: number;
  /** from the load's last 200 until the consumer had every appended event (0 when it already had) */
  drainMs: number;
  /** events the relayed load appended (its 200s) */
  appended: number;
  /** appended events the consumer did not receive within the grace time, and events received twice */
  missing: number;
  duplicates: number;
  /** the backlog drain: events, and the relay's rate over it (checkpoint advances, process start excluded) */
  backlog: number;
  backlogRate: number;
  /** messages the stream held after the backlog drain (= backlog when each was stored once) */
  backlogStored: number;
}

const GRACE_MS = 30_000;
const relayName = (stream: string) => `nats:${stream}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A connection, or the reason there is none (the relay rows then say why instead of measuring). */
export async function natsOrReason(url: string): Promise<NatsConnection | string> {
  try {
    return await connect({ servers: url, timeout: 2_000, reconnect: false });
  } catch (err) {
    return `no NATS at ${url} (${(err as Error).message})`;
  }
}

export async function deleteStream(nc: NatsConnection, stream: string): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(stream).catch(() => undefined);
}

/** Puts the relay's checkpoint at the last event (it publishes only what comes next) and frees its lease. */
async function checkpointAtHead(db: BenchDatabase, stream: string): Promise<void> {
  await db.query(
    `insert into feed_relays (name, transaction_id, position)
     select $1, transaction_id, position from domain_events order by transaction_id desc, position desc limit 1
     on conflict (name) do update set transaction_id = excluded.transaction_id, position = excluded.position, holder = null, lease_until = null`,
    [relayName(stream)],
  );
}

async function relayRow(db: BenchDatabase, stream: string): Promise<{ holder: string | null; published: number }> {
  const [row] = await db.query<{ holder: string | null; published: string }>('select holder, published from feed_relays where name = $1', [relayName(stream)]);
  return { holder: row.holder, published: Number(row.published) };
}

/** `market-service relay nats`, started and holding the lease. */
async function startRelay(db: BenchDatabase, env: ServiceEnv, target: RelayTarget) {
  const relay = spawnCli(
    { ...env, extraEnv: { ...env.extraEnv, NATS_URL: target.natsUrl, NATS_STREAM: target.stream, NATS_SUBJECT_PREFIX: target.subjectPrefix } },
    ['relay', 'nats'],
  );
  for (const deadline = Date.now() + 60_000; ; await sleep(20)) {
    if (relay.child.exitCode !== null) throw new Error(`market-service relay nats exited with ${relay.child.exitCode} (see the log)`);
    if ((await relayRow(db, target.stream)).holder) return relay;
    if (Date.now() > deadline) {
      await relay.stop();
      throw new Error('the relay did not take its lease within 60 s');
    }
  }
}

/** Times every message the stream delivers (an ordered consumer from the stream's start), by `<tension id>:<version>`. */
async function timeDeliveries(nc: NatsConnection, stream: string) {
  const received = new Map<string, number>();
  let duplicates = 0;
  const messages = await (await jetstream(nc).consumers.get(stream)).consume();
  const done = (async () => {
    for await (const m of messages) {
      const at = wallClock();
      const e = m.json<{ streamId: string; version: number }>();
      const k = `${e.streamId}:${e.version}`;
      if (received.has(k)) duplicates++;
      else received.set(k, at);
    }
  })();
  return {
    received,
    duplicates: () => duplicates,
    async stop() {
      await messages.close();
      await done;
    },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN;
}

export async function relayRound(
  db: BenchDatabase,
  env: ServiceEnv,
  nc: NatsConnection,
  target: RelayTarget,
  recordedLoad: RecordedLoad,
  backlog: { base: number; streams: number; eventsPerStream: number },
  log: (s: string) => void,
): Promise<RelayRound> {
  const jsm = await jetstreamManager(nc);
  const alone = await recordedLoad(() => undefined);

  // Under the maximum append rate: the relay follows the load; a consumer times each event's arrival.
  await checkpointAtHead(db, target.stream);
  let relay = await startRelay(db, env, target);
  let relayed: HttpResult;
  const responses: [string, number][] = [];
  let lags: number[];
  let drainMs: number;
  let missing = 0;
  let duplicates: number;
  try {
    await jsm.streams.purge(target.stream);
    const deliveries = await timeDeliveries(nc, target.stream);
    try {
      relayed = await recordedLoad((event, at) => responses.push([event, at]));
      for (const deadline = Date.now() + GRACE_MS; Date.now() < deadline; await sleep(50)) {
        if (responses.every(([k]) => deliveries.received.has(k))) break;
      }
    } finally {
      await deliveries.stop();
    }
    lags = [];
    let lastArrival = 0;
    for (const [k, sent] of responses) {
      const at = deliveries.received.get(k);
      if (at === undefined) missing++;
      else {
        lags.push(at - sent);
        lastArrival = Math.max(lastArrival, at);
      }
    }
    lags.sort((a, b) => a - b);
    drainMs = Math.max(0, lastArrival - Math.max(...responses.map(([, at]) => at)));
    duplicates = deliveries.duplicates();
  } finally {
    await relay.stop();
  }

  // The relay's own rate: a backlog written while it is stopped, drained from its (re)start.
  await checkpointAtHead(db, target.stream);
  await jsm.streams.purge(target.stream);
  const events = backlog.streams * backlog.eventsPerStream;
  await bulkStreams(db, backlog.base, backlog.streams, backlog.eventsPerStream, () => undefined);
  const p0 = (await relayRow(db, target.stream)).published;
  relay = await startRelay(db, env, target);
  let first: { at: number; published: number } | undefined;
  let last: { at: number; published: number } | undefined;
  try {
    for (const deadline = Date.now() + 10 * 60_000; Date.now() < deadline; await sleep(20)) {
      const published = (await relayRow(db, target.stream)).published - p0;
      const at = performance.now();
      if (published > 0 && !first) first = { at, published };
      if (published >= events) {
        last = { at, published };
        break;
      }
    }
  } finally {
    await relay.stop();
  }
  if (!first || !last) throw new Error(`the relay did not drain a backlog of ${events} events within 10 minutes`);
  const backlogRate = (last.published - first.published) / ((last.at - first.at) / 1000);
  const backlogStored = (await jsm.streams.info(target.stream)).state.messages;
  await jsm.streams.purge(target.stream);
  log(`  relay: backlog of ${events} drained at ${Math.round(backlogRate)} ev/s (${backlogStored} stored)`);
  return {
    alone,
    relayed,
    appended: responses.length,
    lagP50: percentile(lags, 50),
    lagP99: percentile(lags, 99),
    drainMs,
    missing,
    duplicates,
    backlog: events,
    backlogRate,
    backlogStored,
  };
}

export function relayFigures(rounds: RelayRound[], unavailable?: string): Figure[] {
  if (unavailable) return [{ name: 'relay to NATS JetStream', value: `not measured: ${unavailable}` }];
  if (rounds.length === 0) return [];
  const p99 = median(rounds.map((r) => r.lagP99));
  const drain = median(rounds.map((r) => r.drainMs));
  const lost = rounds.reduce((n, r) => n + r.missing + r.duplicates + Math.abs(r.backlogStored - r.backlog), 0);
  return [
    ratioFigure(
      `relay drain (backlog of ${rounds[0].backlog}) vs append rate (rescore 8)`,
      rounds.map((r) => r.backlogRate),
      rounds.map((r) => r.alone.rps),
      ' ev/s',
      '>=',
      1,
    ),
    {
      name: '  relay lag p50 / p99 under rescore 8, 200 → JetStream consumer',
      value: `${fmt(median(rounds.map((r) => r.lagP50)))} / ${fmt(p99)} ms`,
      target: 'p99 <= 1000 ms',
      pass: p99 <= 1000,
    },
    { name: '  relay drained after the load stopped', value: fmt(drain, ' ms'), target: '<= 1000 ms', pass: drain <= 1000 },
    {
      name: '  relay events missing or twice, all rounds',
      value: `${lost} of ${rounds.reduce((n, r) => n + r.appended + r.backlog, 0)}`,
      target: '= 0',
      pass: lost === 0,
    },
    {
      ...ratioFigure(
        '  REST rescore 8 conns, relay running vs not',
        rounds.map((r) => r.relayed.rps),
        rounds.map((r) => r.alone.rps),
        ' req/s',
        '>=',
        0,
      ),
      target: undefined,
      pass: undefined,
    },
  ];
}

export const relayLoads = (rounds: RelayRound[]): HttpResult[] => rounds.flatMap((r) => [r.alone, r.relayed]);
