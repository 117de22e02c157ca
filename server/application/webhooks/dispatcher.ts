// The webhook dispatcher (SPEC §14): fed by the event feed, never by the command path. Each instance
// runs one; they share the work through the database. A round (after a commit is announced, at most one
// every MIN_ROUND_MS, or every pollMs) costs a handful of statements however many endpoints and events:
// - the lanes: the endpoints whose first attempts this instance sends (a lease on the endpoint row, written
//   only when taken or a third spent), read with their checkpoints in one statement;
// - the fill: one read of the feed from the lowest of their checkpoints, and one statement that writes
//   every lane's new deliveries with its new checkpoint (only if no other instance moved it meanwhile);
// - the first attempts: claimed for all lanes in one statement (`FOR UPDATE SKIP LOCKED`), each lane's in
//   feed order, up to PER_ENDPOINT in flight per endpoint; a batch is sent at once, its requests started in
//   feed order, and never two of one stream at once (a tension's events arrive in version order when
//   nothing fails). A lane claims again when its attempts in flight fall to half, without waiting for a round;
// - the retries that are due, claimed by any instance, so a failing event never holds later ones back;
// - the outcomes: written together, one statement for all the attempts that ended meanwhile.
// A claim counts the attempt and moves its next-attempt time past the attempt's longest run in one update,
// so an attempt runs once, and one cut short by a crash is due again afterwards (at least once). No database
// connection is held while a POST runs. Sending runs beside the requests with a bound per endpoint and in
// all, so a slow or dead endpoint slows neither commands nor other endpoints.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics.js';
import { compareFeedCursors, readFeed, type FeedCursor } from '../../persistence/event-store.js';
import { listenForCommits } from '../../persistence/feed-listener.js';
import * as store from '../../persistence/webhooks.js';
import { recordAudit } from '../audit/audit.js';
import { systemCaller } from '../context.js';
import { checkDestination, systemResolver, type HostResolver } from './destination.js';
import { attempt, ATTEMPT_TIMEOUT_MS, notSent, PER_ENDPOINT, post, type AttemptResult } from './sender.js';
import { bodyOfEvent, deliveryOfEvent } from './webhooks.js';

/** The waits before each retry (SPEC §14: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); then failed. */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
/** An endpoint whose attempts have all failed for this long is disabled. */
export const FAILING_DISABLE_MS = 5 * 24 * 3_600_000;
/** Rounds start at most this often: the commits announced meanwhile are read and queued together. */
const MIN_ROUND_MS = 25;
/** Feed events a round reads at once (it reads again while pages come full). */
const FILL_PAGE = 500;
/** Outcomes written by one statement. */
const RECORD_BATCH = 500;
/** Succeeded deliveries are kept this long in the log (docs/webhooks.md), then deleted. */
export const SUCCEEDED_KEPT_MS = 7 * 24 * 3_600_000;
/** How often (on the schedule's clock) an instance deletes them, and how many one statement deletes. */
const PURGE_EVERY_MS = 10 * 60_000;
const PURGE_BATCH = 1_000;

export interface DispatcherOptions {
  orm: MikroORM;
  logger: Logger;
  /** the schedule's clock (retries, the five-day rule); tests control it */
  clock: () => Date;
  newId?: () => string;
  metrics?: Pick<Metrics, 'webhookAttempt' | 'webhookDelivered'>;
  resolveHost?: HostResolver;
  allowPrivate: boolean;
  /** attempts at once on this instance, over all endpoints */
  concurrency: number;
  /** how long an endpoint's lane is held without renewal; another instance takes over after it */
  leaseMs?: number;
  /** how often to look for work when no commit is announced */
  pollMs?: number;
  timeoutMs?: number;
  /** the jitter of a retry's wait, as a fraction (0.1 = ±10 %); tests set 0 */
  jitter?: number;
}

export interface RunningDispatcher {
  readonly id: string;
  /** look for work now (a commit, a new test message) */
  wake(): void;
  stop(): Promise<void>;
}

export function startWebhookDispatcher(opts: DispatcherOptions): RunningDispatcher {
  const id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const log = opts.logger.child({ webhooks: id });
  const leaseMs = opts.leaseMs ?? 30_000;
  const pollMs = opts.pollMs ?? 500;
  const timeoutMs = opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const jitter = opts.jitter ?? 0.1;
  const newId = opts.newId ?? randomUUID;
  const rules = { allowPrivate: opts.allowPrivate, resolve: opts.resolveHost ?? systemResolver };
  const em = () => opts.orm.em.fork();

  let stopping = false;
  let wakeUp: (() => void) | undefined;
  let poked = false;
  const wake = () => {
    poked = true;
    wakeUp?.();
    wakeUp = undefined;
  };
  const sleep = (ms: number) =>
    new Promise<void>((r) => {
      if (poked) return r();
      const t = setTimeout(() => {
        wakeUp = undefined;
        r();
      }, ms);
      wakeUp = () => {
        clearTimeout(t);
        r();
      };
    });

  /** attempts in flight on this instance, by endpoint */
  const inFlight = new Map<string, number>();
  /** per endpoint, the streams of its first attempts in flight (never two of one stream at once) */
  const streamsInFlight = new Map<string, Map<string, number>>();
  /** attempts in flight, and slots promised to a claim under way */
  let running = 0;
  let reserved = 0;
  /** the endpoints whose lanes this instance holds, and those that may have first attempts waiting */
  let lanes: string[] = [];
  const waiting = new Set<string>();
  const tasks = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    tasks.add(p);
    void p.finally(() => tasks.delete(p));
  };
  const begin = (d: store.ClaimedDelivery) => {
    running++;
    inFlight.set(d.endpointId, (inFlight.get(d.endpointId) ?? 0) + 1);
    if (d.attempt === 1) {
      const streams = streamsInFlight.get(d.endpointId) ?? new Map<string, number>();
      streams.set(d.stream, (streams.get(d.stream) ?? 0) + 1);
      streamsInFlight.set(d.endpointId, streams);
    }
  };
  const end = (d: store.ClaimedDelivery) => {
    running--;
    const n = (inFlight.get(d.endpointId) ?? 1) - 1;
    if (n > 0) inFlight.set(d.endpointId, n);
    else inFlight.delete(d.endpointId);
    const streams = streamsInFlight.get(d.endpointId);
    if (d.attempt === 1 && streams) {
      const m = (streams.get(d.stream) ?? 1) - 1;
      if (m > 0) streams.set(d.stream, m);
      else streams.delete(d.stream);
      if (streams.size === 0) streamsInFlight.delete(d.endpointId);
    }
  };

  /**
   * Queues every lane's deliveries for the events past its checkpoint, from one read of the feed (from the
   * lowest checkpoint, all types; each lane takes what is past its own and of its types).
   */
  const fill = async (held: store.Lane[]) => {
    let at = held;
    for (let pages = 0; at.length > 0 && pages < 20 && !stopping; pages++) {
      const from = at.reduce<FeedCursor>((low, l) => (compareFeedCursors(l.checkpoint, low) < 0 ? l.checkpoint : low), at[0].checkpoint);
      const page = await readFeed(em(), from, FILL_PAGE);
      const fills: store.LaneFill[] = [];
      for (const l of at) {
        if (compareFeedCursors(page.next, l.checkpoint) <= 0) continue;
        const deliveries = page.events
          .filter((e) => compareFeedCursors(e, l.checkpoint) > 0 && (!l.types || l.types.includes(e.type)))
          .map((e) => deliveryOfEvent(newId(), e));
        fills.push({ endpointId: l.id, from: l.checkpoint, to: page.next, deliveries });
      }
      const moved = new Set(await store.fillLanes(em(), fills, opts.clock()));
      for (const f of fills) if (moved.has(f.endpointId) && f.deliveries.length > 0) waiting.add(f.endpointId);
      if (page.events.length < FILL_PAGE) return;
      // a full page: the lanes it moved read on, and those ahead of it (a lane another instance moved is left to it)
      const tried = new Set(fills.map((f) => f.endpointId));
      at = at.flatMap((l) => (moved.has(l.id) ? [{ ...l, checkpoint: page.next }] : tried.has(l.id) ? [] : [l]));
    }
  };

  const nextRetry = (attemptNo: number, now: Date): Date | null => {
    const wait = RETRY_SCHEDULE_MS[attemptNo - 1];
    if (wait === undefined) return null;
    const spread = 1 + (Math.random() * 2 - 1) * jitter;
    return new Date(now.getTime() + Math.round(wait * spread));
  };

  const disable = async (tx: store.Tx, endpointId: string, reason: 'gone' | 'failing', now: Date) => {
    const row = await store.disableEndpoint(tx, endpointId, reason, now);
    if (!row) return;
    log.warn({ endpointId, reason }, 'webhooks: endpoint disabled');
    await recordAudit(
      { clock: () => now, newId },
      tx,
      { caller: systemCaller(), via: 'cli', requestId: `webhooks:${id}`, clientAddress: null },
      {
        action: 'webhook.disabled',
        target: { type: 'webhook', id: endpointId, label: row.url },
        changes: { enabled: { from: true, to: false }, disabledReason: { from: null, to: reason } },
      },
    );
  };

  /** An event's commit to this answer, in seconds; null for a test message. (The event's time is the one it was recorded at.) */
  const lagOf = (d: store.ClaimedDelivery, now: Date): number | null => {
    const stored = d.eventType === 'webhook.test' || d.payload === null ? null : (JSON.parse(d.payload) as { timestamp?: string }).timestamp;
    const at = d.event ? d.event.occurredAt.getTime() : Date.parse(stored ?? '');
    return Number.isNaN(at) ? null : (now.getTime() - at) / 1000;
  };

  /** What an attempt sends: the stored body, or the one built from the feed's event (null: the event is gone). */
  const messageOf = (d: store.ClaimedDelivery, now: Date) => {
    const body = d.payload ?? (d.event ? bodyOfEvent(d.event) : null);
    return body === null ? null : { id: d.messageId, body, secrets: signingSecrets(d, now) };
  };
  const noEvent = (): Promise<AttemptResult> =>
    Promise.resolve({ status: null, body: null, error: 'not sent: the event is no longer in the store', durationMs: 0, notSent: true });

  /** The secrets that sign now: the current one, and the previous one during a rotation's overlap. */
  const signingSecrets = ({ secrets }: store.ClaimedDelivery, now: Date) => [
    secrets.secret,
    ...(secrets.previousSecret && secrets.previousSecretUntil && secrets.previousSecretUntil > now ? [secrets.previousSecret] : []),
  ];

  /** Attempts that ended, waiting to be written together. */
  const outcomes: { d: store.ClaimedDelivery; row: store.RecordedOutcome; gone: boolean }[] = [];
  let recording: Promise<void> | undefined;

  /** Writes what ended: the common outcomes in one statement; a 410 or a five-day run of failures, which disable the endpoint, each in a transaction. */
  const record = async () => {
    while (outcomes.length > 0) {
      const batch = outcomes.splice(0, RECORD_BATCH);
      const ended: { d: store.ClaimedDelivery; row: store.RecordedOutcome }[] = [];
      const common = new Set(
        batch.filter(({ d, row, gone }) => !gone && (row.succeeded || !d.failingSince || row.at.getTime() - d.failingSince.getTime() < FAILING_DISABLE_MS)),
      );
      try {
        const recorded = await store.recordAttempts(
          em(),
          [...common].map((o) => o.row),
        );
        for (const o of common) if (recorded.has(o.d.id) && (o.row.succeeded || !o.row.nextAttemptAt)) ended.push(o);
      } catch (err) {
        // The claims stand: the attempts are due again once their run windows have passed.
        log.warn({ err, deliveries: common.size }, 'webhooks: recording attempts failed');
      }
      for (const o of batch) {
        if (common.has(o)) continue;
        const { d, row, gone } = o;
        try {
          const recordedNow = await em().transactional(async (tx) => {
            const recorded = await store.recordAttempt(tx, d.id, d, row);
            if (!recorded) return false;
            await store.markEndpointHealth(tx, d.endpointId, row.succeeded, row.at);
            await disable(tx, d.endpointId, gone ? 'gone' : 'failing', row.at);
            return true;
          });
          if (recordedNow && (row.succeeded || !row.nextAttemptAt)) ended.push(o);
        } catch (err) {
          log.warn({ err, deliveryId: d.id }, 'webhooks: recording an attempt failed');
        }
      }
      for (const { d, row } of ended) opts.metrics?.webhookDelivered(row.succeeded ? 'succeeded' : 'failed', row.succeeded ? lagOf(d, row.at) : null);
    }
  };
  const flush = () => {
    if (recording) return;
    recording = record().finally(() => {
      recording = undefined;
      if (outcomes.length > 0) flush();
    });
    track(recording);
  };

  /** Notes what came of one attempt, to be written with the others that ended meanwhile. */
  const settle = (d: store.ClaimedDelivery, result: AttemptResult) => {
    const now = opts.clock();
    const succeeded = result.status !== null && result.status >= 200 && result.status < 300;
    const gone = result.status === 410;
    opts.metrics?.webhookAttempt(succeeded ? 'succeeded' : gone ? 'gone' : result.notSent ? 'not_sent' : 'failed', result.durationMs / 1000);
    const retryAt = succeeded || gone ? null : nextRetry(d.attempt, now);
    outcomes.push({
      d,
      gone,
      row: {
        id: d.id,
        attempt: d.attempt,
        claimedUntil: d.claimedUntil,
        endpointId: d.endpointId,
        succeeded,
        at: now,
        status: succeeded ? 'succeeded' : retryAt ? 'retrying' : 'failed',
        nextAttemptAt: retryAt,
        responseStatus: result.status,
        responseBody: result.body,
        error: result.error,
        durationMs: result.durationMs,
      },
    });
    flush();
  };

  /** Sends one claimed attempt (its destination checked again) and notes its outcome. */
  const run = (d: store.ClaimedDelivery, sent: Promise<AttemptResult>) =>
    track(
      sent
        .then((result) => settle(d, result))
        .catch((err: unknown) => log.warn({ err, deliveryId: d.id }, 'webhooks: an attempt failed'))
        .finally(() => {
          end(d);
          pump();
        }),
    );

  /** Sends a lane's claimed first attempts: the destination checked once for the batch, the requests started in feed order. */
  const sendBatch = async (batch: store.ClaimedDelivery[]) => {
    const started = performance.now();
    let destination: Awaited<ReturnType<typeof checkDestination>>;
    try {
      destination = await checkDestination(batch[0].url, rules);
    } catch (err) {
      destination = { ok: false, reason: `could not be checked (${(err as Error).message})` };
    }
    for (const d of batch) {
      const message = messageOf(d, opts.clock());
      run(
        d,
        !destination.ok ? Promise.resolve(notSent(destination.reason, started)) : message ? post(destination, message, { timeoutMs }, started) : noEvent(),
      );
    }
  };

  /** the claim of first attempts under way: it holds the slots it may fill until it answers */
  let claiming: Promise<void> | undefined;
  let claimAgain = false;
  let turn = 0;
  /**
   * Claims first attempts for the lanes that may have some waiting and have room (at most PER_ENDPOINT in
   * flight, claiming again once half of them have ended, so that a lane's claims come in batches), within
   * the instance's bound, and starts them. One claim at a time; a call during one runs again after it.
   */
  const pump = () => {
    if (stopping) return;
    if (claiming) {
      claimAgain = true;
      return;
    }
    const wants: store.FirstAttemptWant[] = [];
    let free = opts.concurrency - running - reserved;
    // a different lane first each time, so that a full instance shares its slots among them
    turn = (turn + 1) % Math.max(1, lanes.length);
    for (let i = 0; i < lanes.length && free > 0; i++) {
      const endpointId = lanes[(turn + i) % lanes.length];
      if (!waiting.has(endpointId)) continue;
      const busy = inFlight.get(endpointId) ?? 0;
      if (busy > PER_ENDPOINT / 2) continue;
      const room = Math.min(PER_ENDPOINT - busy, free);
      free -= room;
      wants.push({ endpointId, room, busy: [...(streamsInFlight.get(endpointId)?.keys() ?? [])] });
    }
    if (wants.length === 0) return;
    const promised = wants.reduce((n, w) => n + w.room, 0);
    reserved += promised;
    let promising = true;
    const unpromise = () => {
      if (promising) reserved -= promised;
      promising = false;
    };
    claiming = (async () => {
      try {
        const now = opts.clock();
        const { claimed, waiting: more } = await store.claimFirstAttempts(em(), wants, now, new Date(now.getTime() + timeoutMs + 5_000));
        for (const w of wants) if (!more.has(w.endpointId)) waiting.delete(w.endpointId);
        const byEndpoint = new Map<string, store.ClaimedDelivery[]>();
        for (const d of claimed) {
          begin(d);
          byEndpoint.set(d.endpointId, [...(byEndpoint.get(d.endpointId) ?? []), d]);
        }
        unpromise();
        await Promise.all([...byEndpoint.values()].map(sendBatch));
      } catch (err) {
        unpromise();
        log.warn({ err }, 'webhooks: claiming first attempts failed');
      } finally {
        claiming = undefined;
        if (claimAgain) {
          claimAgain = false;
          pump();
        }
      }
    })();
    track(claiming);
  };

  /** Deletes the succeeded deliveries past their keeping, in batches, beside the rounds. */
  let purgedAt = -Infinity;
  let purging: Promise<void> | undefined;
  const purge = () => {
    const now = opts.clock();
    if (purging || now.getTime() - purgedAt < PURGE_EVERY_MS) return;
    purgedAt = now.getTime();
    purging = (async () => {
      try {
        const before = new Date(now.getTime() - SUCCEEDED_KEPT_MS);
        while (!stopping && (await store.purgeSucceeded(em(), before, PURGE_BATCH)) === PURGE_BATCH);
      } catch (err) {
        log.warn({ err }, 'webhooks: deleting old succeeded deliveries failed');
      } finally {
        purging = undefined;
      }
    })();
    track(purging);
  };

  const round = async () => {
    const held = await store.holdLanes(em(), id, leaseMs, 1000);
    lanes = held.map((l) => l.id);
    const mine = new Set(lanes);
    for (const e of waiting) if (!mine.has(e)) waiting.delete(e);
    await fill(held);
    // test messages, replays and manual retries are queued by the API: every lane looks once a round
    for (const e of lanes) waiting.add(e);
    // the retries that are due first (at most PER_ENDPOINT of one endpoint), then the lanes take the slots left;
    // a claim of first attempts under way holds slots it may not fill: its answer frees them
    await claiming;
    const free = opts.concurrency - running - reserved;
    if (free > 0 && !stopping) {
      const now = opts.clock();
      reserved += free;
      let due: store.ClaimedDelivery[];
      try {
        due = await store.claimDueRetries(em(), now, new Date(now.getTime() + timeoutMs + 5_000), Math.min(free, 50), PER_ENDPOINT, inFlight);
      } finally {
        reserved -= free;
      }
      for (const d of due) {
        begin(d);
        const message = messageOf(d, opts.clock());
        run(d, message ? attempt(d.url, message, rules, { timeoutMs }) : noEvent());
      }
    }
    pump();
    purge();
  };

  const listener = listenForCommits(opts.orm, wake, log);
  const loop = async () => {
    while (!stopping) {
      poked = false;
      const started = performance.now();
      try {
        await round();
      } catch (err) {
        log.warn({ err }, 'webhooks: round failed; retrying');
      }
      if (stopping) break;
      await sleep(pollMs);
      // the commits announced during the pause are read together by the next round
      const since = performance.now() - started;
      if (since < MIN_ROUND_MS && !stopping) await new Promise((r) => setTimeout(r, MIN_ROUND_MS - since));
    }
  };
  const done = loop();
  return {
    id,
    wake,
    async stop() {
      stopping = true;
      wake();
      await done;
      while (tasks.size > 0) await Promise.allSettled([...tasks]);
      await listener.close();
      await store.releaseLanes(em(), id).catch((err: unknown) => log.warn({ err }, 'webhooks: could not release the lanes (they expire)'));
    },
  };
}
