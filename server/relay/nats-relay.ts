// The relay to NATS JetStream (SPEC §10): publishes every event, in feed order, to
// `<prefix>.<streamType>.<type>` with `Nats-Msg-Id` = the event id, and advances its checkpoint in the
// database only after JetStream acknowledged. One active relay per database and stream, by a lease row
// with expiry (no session advisory lock: PgBouncer's transaction pooling would break it); a standby
// retries the lease and takes over when it expires or is handed over.
//
// NATS is never needed to start: the relay connects in the background and reconnects for ever. A relay
// that cannot publish (NATS unreachable, JetStream refusing or not acknowledging) hands its lease over at
// once, so a standby that can publish takes over, and competes again only while connected. Whoever
// publishes next starts from the checkpoint, after the newest event the stream already holds (an
// acknowledgement lost with the connection), so nothing is published twice even past JetStream's
// duplicate window, and nothing is skipped.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from '../logger.js';
import { keepNatsConnected } from './nats-connection.js';
import type { Metrics } from '../metrics.js';
import { readFeed, type FeedCursor } from '../persistence/event-store.js';
import { acquireLease, advanceCheckpoint, releaseLease, storedPastCheckpoint } from '../persistence/relay-store.js';
import { listenForCommits, type FeedListener } from '../persistence/feed-listener.js';
import { toFeedEventView, type FeedEventView } from '../application/events/events.js';
import { UUID_RE } from '../domain/ids.js';

export interface RelayOptions {
  orm: MikroORM;
  logger: Logger;
  natsUrl: string;
  subjectPrefix: string;
  stream: string;
  leaseMs: number;
  /** events per batch: published together, acknowledged, then checkpointed */
  batch?: number;
  /** how often to look for new events when no commit is notified (embedded database, or a lost LISTEN) */
  pollMs?: number;
  /** the wait between NATS (re)connection attempts; default 2000 ms */
  reconnectWaitMs?: number;
  /** how long a publish waits for JetStream's acknowledgement before the round counts as failed; default 5000 ms */
  publishTimeoutMs?: number;
  /** the instance's metrics: the relay's state and its failed rounds */
  metrics?: Pick<Metrics, 'watchRelay' | 'relayPublishFailure'>;
}

export interface RunningRelay {
  /** this relay's lease holder id */
  readonly id: string;
  /** true while this relay holds the lease */
  active(): boolean;
  /** true while its NATS connection is up */
  connected(): boolean;
  /** stops publishing, releases the lease, closes the NATS connection */
  stop(): Promise<void>;
  /** resolves when the relay stopped (by stop(), or a fatal error it reports) */
  done: Promise<void>;
}

export const relayName = (stream: string) => `nats:${stream}`;
export const subjectOf = (prefix: string, e: Pick<FeedEventView, 'streamType' | 'type'>) => `${prefix}.${e.streamType}.${e.type}`;

/** Creates the JetStream stream bound to `<prefix>.>` if it is missing (an existing one is left as it is). */
async function ensureStream(jsm: JetStreamManager, stream: string, prefix: string): Promise<void> {
  try {
    await jsm.streams.info(stream);
  } catch {
    await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`] });
  }
}

/** The event id of the newest message the stream holds under `<prefix>.`, if it holds any. */
async function newestStoredId(jsm: JetStreamManager, stream: string, prefix: string): Promise<string | undefined> {
  const { state } = await jsm.streams.info(stream);
  if (!state.messages) return undefined;
  const m = await jsm.streams.getMessage(stream, { seq: state.last_seq });
  const id = m?.header?.get('Nats-Msg-Id');
  return m && m.subject.startsWith(`${prefix}.`) && id && UUID_RE.test(id) ? id : undefined;
}

/** Starts relaying; resolves at once (NATS need not be up: the relay connects when it can). */
export async function startNatsRelay(opts: RelayOptions): Promise<RunningRelay> {
  const id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const name = relayName(opts.stream);
  const batch = opts.batch ?? 500;
  const pollMs = opts.pollMs ?? 250;
  const renewMs = Math.max(200, Math.floor(opts.leaseMs / 3));
  /** after a failed round, how long this relay leaves the lease to others before it competes again */
  const yieldMs = 2 * renewMs;
  const log = opts.logger.child({ relay: name, holder: id });
  const em = () => opts.orm.em.fork();

  let stopping = false;
  let holding = false;
  let wake: (() => void) | undefined;
  /** a commit was announced since the last read began: the next sleep returns at once */
  let poked = false;
  const poke = () => {
    poked = true;
    wake?.();
    wake = undefined;
  };
  const link = keepNatsConnected({ url: opts.natsUrl, name: `market-service relay ${id}`, logger: log, reconnectWaitMs: opts.reconnectWaitMs, onChange: poke });
  /** JetStream on the current connection, made (and the stream ensured) once per connection */
  let target: { nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager } | undefined;
  const jetStreamNow = async () => {
    const nc = link.current();
    if (!nc) return undefined;
    if (target?.nc !== nc) {
      const jsm = await jetstreamManager(nc, { timeout: opts.publishTimeoutMs });
      await ensureStream(jsm, opts.stream, opts.subjectPrefix);
      target = { nc, jsm, js: jetstream(nc, { timeout: opts.publishTimeoutMs }) };
    }
    return target;
  };

  const listener: FeedListener = listenForCommits(opts.orm, poke, log);
  /** Waits `ms` or until a commit is announced; `caughtUp`: not at all if one was announced during the last round. */
  const sleep = (ms: number, caughtUp = false) =>
    new Promise<void>((r) => {
      if (caughtUp && poked) return r();
      const t = setTimeout(() => {
        wake = undefined;
        r();
      }, ms);
      wake = () => {
        clearTimeout(t);
        r();
      };
    });

  const publishBatch = async (js: JetStreamClient, from: FeedCursor): Promise<{ next: FeedCursor; count: number }> => {
    const page = await readFeed(em(), from, batch);
    if (page.events.length === 0) return { next: page.next, count: 0 };
    // Sent in feed order on one connection (JetStream stores them in that order); then every ack awaited.
    const acks = page.events.map((e) => {
      const view = toFeedEventView(e);
      return js.publish(subjectOf(opts.subjectPrefix, view), JSON.stringify(view), { msgID: e.id });
    });
    await Promise.all(acks);
    const last = page.events[page.events.length - 1];
    return { next: { transactionId: last.transactionId, position: last.position }, count: page.events.length };
  };

  /** Stops renewing, and hands the lease over at once, so a standby that can publish takes over. */
  const handOver = async (why: string, err?: unknown) => {
    opts.metrics?.relayPublishFailure(name);
    const held = holding;
    holding = false;
    if (!held) return;
    log.warn({ err }, `relay: ${why}; lease handed over to any standby that can publish`);
    await releaseLease(em(), name, id).catch((e: unknown) => log.warn({ err: e }, 'relay: could not release the lease (it expires)'));
  };

  const loop = async () => {
    let lastRenew = 0;
    /** the checkpoint as this relay last wrote it; only the lease holder advances it, so while holding it is the database's */
    let cursor: FeedCursor | null = null;
    /** not before this time does the relay compete for the lease again (it just failed to publish) */
    let yieldUntil = 0;
    while (!stopping) {
      const wait = yieldUntil - Date.now();
      if (wait > 0) {
        await sleep(wait);
        continue;
      }
      if (!link.current()) {
        // No NATS: never hold the lease, so a standby whose NATS answers publishes meanwhile.
        if (holding) await handOver('NATS unreachable');
        cursor = null;
        await sleep(renewMs);
        continue;
      }
      let js: JetStreamClient;
      try {
        const t = await jetStreamNow();
        if (!t) continue;
        js = t.js;
        // The lease is taken (and the checkpoint read) when not held, and renewed when a third of it has
        // passed without a checkpoint; a wake-up by a commit in between goes straight to the feed, so a
        // steady load costs a read, the publish and one checkpoint update per wake-up.
        if (!holding || !cursor || Date.now() - lastRenew >= renewMs) {
          const checkpoint = await acquireLease(em(), name, id, opts.leaseMs);
          lastRenew = Date.now();
          if (!checkpoint) {
            if (holding) log.warn('relay: lease lost; standing by');
            holding = false;
            cursor = null;
            await sleep(renewMs);
            continue;
          }
          if (!holding) log.info({ checkpoint }, 'relay: lease taken; publishing');
          const fresh = !holding || !cursor;
          holding = true;
          cursor = checkpoint;
          if (fresh) {
            // The stream may already hold events past the checkpoint: a batch stored whose acks were lost.
            const newest = await newestStoredId(t.jsm, opts.stream, opts.subjectPrefix);
            const stored = newest ? await storedPastCheckpoint(em(), newest, cursor) : null;
            if (stored && (await advanceCheckpoint(em(), name, id, opts.leaseMs, stored.cursor, stored.count))) {
              log.info({ events: stored.count, checkpoint: stored.cursor }, 'relay: the stream already held events past the checkpoint; resuming after them');
              cursor = stored.cursor;
            }
          }
        }
      } catch (err) {
        log.warn({ err }, 'relay: round failed; retrying');
        // The checkpoint may have moved under a failed round: read it again with the lease.
        cursor = null;
        await sleep(Math.min(1_000, renewMs));
        continue;
      }
      // Publish until caught up (a page shorter than the batch), renewing the lease with every checkpoint.
      // A commit announced from here on wakes the next round, even while this one is still publishing.
      poked = false;
      try {
        for (;;) {
          if (stopping) return;
          const { next, count } = await publishBatch(js, cursor);
          if (count === 0) break;
          if (!(await advanceCheckpoint(em(), name, id, opts.leaseMs, next, count))) {
            holding = false;
            cursor = null;
            log.warn('relay: lease lost while publishing; standing by');
            break;
          }
          lastRenew = Date.now();
          cursor = next;
          if (count < batch) break;
        }
      } catch (err) {
        // JetStream refused or did not acknowledge, or the connection dropped: whoever publishes next
        // starts again from the checkpoint (and after what the stream already holds).
        cursor = null;
        target = undefined; // ensure the stream again: NATS may have come back without it
        await handOver('publishing failed', err);
        yieldUntil = Date.now() + yieldMs;
        continue;
      }
      if (!holding) continue;
      const idle = listener.listening() ? renewMs - (Date.now() - lastRenew) : Math.min(pollMs, renewMs);
      await sleep(Math.max(10, idle), true);
    }
  };

  const done = loop();
  const relay: RunningRelay = {
    id,
    active: () => holding && !stopping,
    connected: () => link.current() !== undefined,
    async stop() {
      stopping = true;
      poke();
      await done;
      unwatch?.();
      await listener.close();
      if (holding) await releaseLease(em(), name, id).catch((err) => log.warn({ err }, 'relay: could not release the lease'));
      holding = false;
      await link.close();
    },
    done,
  };
  const unwatch = opts.metrics?.watchRelay({ name, connected: () => relay.connected(), active: () => relay.active() });
  return relay;
}
