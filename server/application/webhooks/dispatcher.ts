// The webhook dispatcher (SPEC §14, §10): fed by the event feed, never by the command path. Each instance
// runs one; they share the work through the database:
// - an endpoint's first attempts are sent by the instance holding its lane (a lease on the endpoint row),
//   one at a time in feed order, after it has written the endpoint's new deliveries and advanced its
//   checkpoint in one transaction;
// - retries that are due are claimed by any instance (`FOR UPDATE SKIP LOCKED`), so a failing event never
//   holds later ones back;
// - a claim counts the attempt and moves the next-attempt time past the attempt's longest run in one update,
//   so an attempt runs once, and one cut short by a crash is due again afterwards (at least once).
// Sending runs beside the requests with a bound per endpoint and in all, so a slow or dead endpoint slows
// neither commands nor other endpoints.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics.js';
import { readFeed } from '../../persistence/event-store.js';
import { listenForCommits } from '../../persistence/feed-listener.js';
import * as store from '../../persistence/webhooks.js';
import { recordAudit } from '../audit/audit.js';
import { systemCaller } from '../context.js';
import { systemResolver, type HostResolver } from './destination.js';
import { attempt, ATTEMPT_TIMEOUT_MS } from './sender.js';
import { deliveryOfEvent } from './webhooks.js';

/** The waits before each retry (SPEC §14: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); then failed. */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
/** An endpoint whose attempts have all failed for this long is disabled. */
export const FAILING_DISABLE_MS = 5 * 24 * 3_600_000;
/** Attempts of one endpoint this instance runs at once (its first-attempt lane and its retries). */
const PER_ENDPOINT = 4;
/** Endpoints whose deliveries a round writes at once (each a transaction: a share of the pool, not all of it). */
const FILL_AT_ONCE = 4;

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
  let running = 0;
  const lanesBusy = new Set<string>();
  const tasks = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    tasks.add(p);
    void p.finally(() => tasks.delete(p));
  };
  const begin = (endpointId: string) => {
    running++;
    inFlight.set(endpointId, (inFlight.get(endpointId) ?? 0) + 1);
  };
  const end = (endpointId: string) => {
    running--;
    const n = (inFlight.get(endpointId) ?? 1) - 1;
    if (n > 0) inFlight.set(endpointId, n);
    else inFlight.delete(endpointId);
    wake();
  };

  /** Writes the endpoint's deliveries for the events past its checkpoint, and the new checkpoint, together. */
  const fill = async (endpointId: string) => {
    for (;;) {
      const more = await em().transactional(async (tx) => {
        const at = await store.lockForFill(tx, endpointId);
        if (!at) return false;
        // In this transaction (PGlite serves one connection at a time); it appends no event, so the feed's horizon is unaffected.
        const page = await readFeed(tx, at.checkpoint, 500, at.types ? { types: at.types } : {});
        await store.insertDeliveries(
          tx,
          endpointId,
          page.events.map((e) => deliveryOfEvent(newId(), e)),
          opts.clock(),
        );
        if (page.next.transactionId !== at.checkpoint.transactionId || page.next.position !== at.checkpoint.position) {
          await store.advanceEndpointCheckpoint(tx, endpointId, page.next);
        }
        return page.events.length === 500;
      });
      if (!more) return;
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
    const at = d.eventType === 'webhook.test' ? NaN : Date.parse(String((d.payload as { timestamp?: unknown }).timestamp));
    return Number.isNaN(at) ? null : (now.getTime() - at) / 1000;
  };

  /** Sends one claimed attempt and records what came of it. */
  const run = async (d: store.ClaimedDelivery) => {
    try {
      const { secrets } = d;
      const now0 = opts.clock();
      const signing = [
        secrets.secret,
        ...(secrets.previousSecret && secrets.previousSecretUntil && secrets.previousSecretUntil > now0 ? [secrets.previousSecret] : []),
      ];
      const result = await attempt(d.url, { id: d.messageId, body: JSON.stringify(d.payload), secrets: signing }, rules, { timeoutMs });
      const now = opts.clock();
      const succeeded = result.status !== null && result.status >= 200 && result.status < 300;
      const gone = result.status === 410;
      const outcome = succeeded ? 'succeeded' : gone ? 'gone' : result.notSent ? 'not_sent' : 'failed';
      opts.metrics?.webhookAttempt(outcome, result.durationMs / 1000);
      const retryAt = succeeded || gone ? null : nextRetry(d.attempt, now);
      const outcomeRow: store.AttemptOutcome = {
        status: succeeded ? 'succeeded' : retryAt ? 'retrying' : 'failed',
        nextAttemptAt: retryAt,
        responseStatus: result.status,
        responseBody: result.body,
        error: result.error,
        durationMs: result.durationMs,
      };
      // The common case, a success after successes, is one statement: no transaction's two extra round trips
      // per delivery (the lane sends one at a time, so they bound an endpoint's rate).
      const ended =
        succeeded && !d.failingSince
          ? await store.recordAttempt(em(), d.id, d.attempt, outcomeRow)
          : await em().transactional(async (tx) => {
              const recorded = await store.recordAttempt(tx, d.id, d.attempt, outcomeRow);
              if (!recorded) return false;
              await store.markEndpointHealth(tx, d.endpointId, succeeded, now);
              if (gone) await disable(tx, d.endpointId, 'gone', now);
              else if (!succeeded && d.failingSince && now.getTime() - d.failingSince.getTime() >= FAILING_DISABLE_MS)
                await disable(tx, d.endpointId, 'failing', now);
              return succeeded || !retryAt;
            });
      if (ended) opts.metrics?.webhookDelivered(succeeded ? 'succeeded' : 'failed', succeeded ? lagOf(d, now) : null);
    } catch (err) {
      // The claim stands: the attempt is due again once its run window has passed.
      log.warn({ err, deliveryId: d.id }, 'webhooks: recording an attempt failed');
    }
  };

  /** The lane: this endpoint's first attempts, one at a time in feed order, while this instance holds it. */
  const lane = async (endpointId: string) => {
    lanesBusy.add(endpointId);
    try {
      while (!stopping && running < opts.concurrency) {
        const now = opts.clock();
        const claimed = await store.claimFirstAttempt(em(), endpointId, now, new Date(now.getTime() + timeoutMs + 5_000));
        if (!claimed) return;
        begin(endpointId);
        try {
          await run(claimed);
        } finally {
          end(endpointId);
        }
      }
    } catch (err) {
      log.warn({ err, endpointId }, 'webhooks: lane round failed');
    } finally {
      lanesBusy.delete(endpointId);
    }
  };

  const round = async () => {
    const lanes = await store.takeLanes(em(), id, leaseMs, 1000);
    // Each endpoint's fill is its own transaction on its own row: side by side, a round costs about one
    // fill's time, not one per endpoint (its lanes wait for the round to restart them).
    const fillAndGo = async (endpointId: string) => {
      if (stopping) return;
      await fill(endpointId);
      if (!lanesBusy.has(endpointId) && running < opts.concurrency) track(lane(endpointId));
    };
    for (let i = 0; i < lanes.length && !stopping; i += FILL_AT_ONCE) await Promise.all(lanes.slice(i, i + FILL_AT_ONCE).map(fillAndGo));
    const free = opts.concurrency - running;
    if (free <= 0) return;
    const now = opts.clock();
    const busy = [...inFlight].filter(([, n]) => n >= PER_ENDPOINT).map(([e]) => e);
    const due = await store.claimDueRetries(em(), now, new Date(now.getTime() + timeoutMs + 5_000), Math.min(free, 50), busy);
    for (const d of due) {
      begin(d.endpointId);
      track(run(d).finally(() => end(d.endpointId)));
    }
  };

  const listener = listenForCommits(opts.orm, wake, log);
  const loop = async () => {
    while (!stopping) {
      poked = false;
      try {
        await round();
      } catch (err) {
        log.warn({ err }, 'webhooks: round failed; retrying');
      }
      if (stopping) break;
      await sleep(pollMs);
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
      await Promise.allSettled([...tasks]);
      await listener.close();
      await store.releaseLanes(em(), id).catch((err: unknown) => log.warn({ err }, 'webhooks: could not release the lanes (they expire)'));
    },
  };
}
