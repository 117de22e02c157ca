// The relay to NATS JetStream (SPEC §10): publishes every event, in feed order, to
// `<prefix>.<streamType>.<type>` with `Nats-Msg-Id` = the event id, and advances its checkpoint in the
// database only after JetStream acknowledged. One active relay per database and stream, by a lease row
// with expiry (no session advisory lock: PgBouncer's transaction pooling would break it); a standby
// retries the lease and takes over when it expires. A crash republishes at most the last unacknowledged
// batch, which JetStream's duplicate window absorbs.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { Logger } from '../logger.js';
import { readFeed, type FeedCursor } from '../persistence/event-store.js';
import { acquireLease, advanceCheckpoint, releaseLease } from '../persistence/relay-store.js';
import { listenForCommits, type FeedListener } from '../persistence/feed-listener.js';
import { toFeedEventView, type FeedEventView } from '../application/events/events.js';

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
}

export interface RunningRelay {
  /** this relay's lease holder id */
  readonly id: string;
  /** true while this relay holds the lease */
  active(): boolean;
  /** stops publishing, releases the lease, closes the NATS connection */
  stop(): Promise<void>;
  /** resolves when the relay stopped (by stop(), or a fatal error it reports) */
  done: Promise<void>;
}

export const relayName = (stream: string) => `nats:${stream}`;
export const subjectOf = (prefix: string, e: Pick<FeedEventView, 'streamType' | 'type'>) => `${prefix}.${e.streamType}.${e.type}`;

/** Creates the JetStream stream bound to `<prefix>.>` if it is missing (an existing one is left as it is). */
export async function ensureStream(nc: NatsConnection, stream: string, prefix: string): Promise<void> {
  const jsm = await jetstreamManager(nc);
  try {
    await jsm.streams.info(stream);
  } catch {
    await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`] });
  }
}

export async function startNatsRelay(opts: RelayOptions): Promise<RunningRelay> {
  const id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const name = relayName(opts.stream);
  const batch = opts.batch ?? 500;
  const pollMs = opts.pollMs ?? 250;
  const renewMs = Math.max(200, Math.floor(opts.leaseMs / 3));
  const log = opts.logger.child({ relay: name, holder: id });
  const em = () => opts.orm.em.fork();

  const nc = await connect({ servers: opts.natsUrl.split(',').map((s) => s.trim()), name: `market-service relay ${id}` });
  await ensureStream(nc, opts.stream, opts.subjectPrefix);
  const js: JetStreamClient = jetstream(nc);

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

  const publishBatch = async (from: FeedCursor): Promise<{ next: FeedCursor; count: number }> => {
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

  const loop = async () => {
    let lastRenew = 0;
    /** the checkpoint as this relay last wrote it; only the lease holder advances it, so while holding it is the database's */
    let cursor: FeedCursor | null = null;
    while (!stopping) {
      try {
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
          holding = true;
          cursor = checkpoint;
        }
        // Publish until caught up (a page shorter than the batch), renewing the lease with every checkpoint.
        // A commit announced from here on wakes the next round, even while this one is still publishing.
        poked = false;
        for (;;) {
          if (stopping) return;
          const { next, count } = await publishBatch(cursor);
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
        if (!holding) continue;
        const idle = listener.listening() ? renewMs - (Date.now() - lastRenew) : Math.min(pollMs, renewMs);
        await sleep(Math.max(10, idle), true);
      } catch (err) {
        log.warn({ err }, 'relay: round failed; retrying');
        // The checkpoint may have moved under a failed round: read it again with the lease.
        cursor = null;
        await sleep(Math.min(1_000, renewMs));
      }
    }
  };

  const done = loop();
  return {
    id,
    active: () => holding && !stopping,
    async stop() {
      stopping = true;
      poke();
      await done;
      await listener.close();
      if (holding) await releaseLease(em(), name, id).catch((err) => log.warn({ err }, 'relay: could not release the lease'));
      holding = false;
      await nc.drain().catch(() => nc.close());
    },
    done,
  };
}
