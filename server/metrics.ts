// Prometheus metrics (SPEC §9): one registry per running app, passed in deps, served at GET /metrics.
import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { keptIdle, type TarnPool } from './persistence/statements.js';
import { backlog } from './persistence/webhooks.js';

export type CommandOutcome = 'appended' | 'noop' | 'refused';

export interface Metrics {
  registry: Registry;
  /** a tension command's outcome; `code` is the refusal's (empty otherwise) */
  tensionCommand(command: string, outcome: CommandOutcome, code?: string): void;
  /** seconds the append + projection of one command took, inside its transaction */
  eventAppend(seconds: number): void;
  loginFailure(): void;
  rateLimited(scope: 'request' | 'login' | 'stream'): void;
  /** one answered HTTP request, by route template */
  httpRequest(labels: { method: string; route: string; status: string }, seconds: number): void;
  /** one request (a REST tension command, a GraphQL operation) the command lane answered outside Express (server/http/command-lane.ts) */
  commandLane(): void;
  /** one read of the event feed by the instance's shared reader (`hub`) or a follower catching up */
  feedRead(reader: 'hub' | 'catchup'): void;
  /** the relay this instance runs: its state is read at every scrape */
  watchRelay(relay: RelayState): () => void;
  /** a round of publishing to the relay's target that failed (refused, unacknowledged, or not connected) */
  relayPublishFailure(relay: string): void;
  /** one webhook attempt: its outcome and how long it took (SPEC §14) */
  webhookAttempt(outcome: 'succeeded' | 'failed' | 'gone' | 'not_sent', seconds: number): void;
  /**
   * one webhook delivery that reached its end: received (a 2xx), or failed with no retry left (410 included);
   * `lagSeconds`, for a received event, from its commit to the receiver's answer
   */
  webhookDelivered(outcome: 'succeeded' | 'failed', lagSeconds: number | null): void;
}

/** What a running relay reports of itself to `/metrics`. */
interface RelayState {
  readonly name: string;
  /** its connection to the target is up */
  connected(): boolean;
  /** it holds the lease and publishes */
  active(): boolean;
}

let processRegistry: Registry | undefined;

/**
 * The process's own metrics (CPU, memory, event-loop delay, GC, handles), collected once per process: they
 * describe the process, not an app, and each collection starts an event-loop delay monitor and a GC
 * observer that live as long as the process. Every app started in the process (the CLI runs one; a test
 * worker runs one per test file) serves these same series beside its own.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, prefix: 'market_' });
  }
  return processRegistry;
}

/** `clock`: the time the webhook backlog's ages are taken at (the app's clock, which tests control). */
export function createMetrics(orm: MikroORM, clock: () => Date = () => new Date()): Metrics {
  const registry = new Registry();
  const commands = new Counter({
    name: 'market_tension_commands_total',
    help: 'Tension commands by command and outcome (appended, noop, refused with its code).',
    labelNames: ['command', 'outcome', 'code'] as const,
    registers: [registry],
  });
  const append = new Histogram({
    name: 'market_event_append_duration_seconds',
    help: 'Time to append a command’s events and update the projection, inside its transaction.',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  });
  const loginFailures = new Counter({ name: 'market_login_failures_total', help: 'Failed password sign-ins.', registers: [registry] });
  const rateLimited = new Counter({
    name: 'market_rate_limited_total',
    help: 'Requests answered 429: over the per-key/per-client request limit, the login throttle, or the open streams per user.',
    labelNames: ['scope'] as const,
    registers: [registry],
  });
  const http = { labelNames: ['method', 'route', 'status'] as const, registers: [registry] };
  const requests = new Counter({ name: 'market_http_requests_total', help: 'HTTP requests by method, route template and status.', ...http });
  const latency = new Histogram({
    name: 'market_http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status.',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    ...http,
  });
  new Gauge({
    name: 'market_db_pool_connections',
    help: 'Database pool connections by state (used, free, pending = requests waiting for one).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const pool = (orm.em.getConnection().getKnex().client as { pool?: TarnPool }).pool;
      if (!pool) return;
      // a connection the hot path keeps between its statements is free for anyone who asks (statements.ts)
      const kept = keptIdle(pool);
      this.set({ state: 'used' }, pool.numUsed() - kept);
      this.set({ state: 'free' }, pool.numFree() + kept);
      this.set({ state: 'pending' }, pool.numPendingAcquires());
    },
  });
  const laneAnswers = new Counter({
    name: 'market_http_command_lane_total',
    help: 'Tension commands over REST and GraphQL requests answered by the command lane, outside Express’s layers (counted in market_http_requests_total too); a request it left to Express (an Origin, a compressed body, a failed key, a GraphQL request that is not the plain case) is not counted here.',
    registers: [registry],
  });
  const feedReads = new Counter({
    name: 'market_feed_reads_total',
    help: 'Reads of the event feed by the shared per-instance reader (hub) and by followers catching up (catchup).',
    labelNames: ['reader'] as const,
    registers: [registry],
  });
  // Read from the relays' checkpoints at scrape time, so every instance reports it, wherever the relay runs.
  const relayLag = async (): Promise<{ name: string; events: number; seconds: number }[]> => {
    try {
      return await orm.em.fork().execute(
        `select r.name, count(e.position)::int as events,
                coalesce(extract(epoch from clock_timestamp() - min(e.occurred_at)), 0)::float8 as seconds
         from feed_relays r left join domain_events e on (e.transaction_id, e.position) > (r.transaction_id, r.position)
         group by r.name`,
      );
    } catch {
      return []; // the schema predates the feed (MIGRATE_ON_START=false), or the database is away
    }
  };
  new Gauge({
    name: 'market_feed_relay_lag_events',
    help: 'Events in the feed the relay has not yet published (acknowledged by JetStream), by relay.',
    labelNames: ['relay'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await relayLag()) this.set({ relay: r.name }, r.events);
    },
  });
  new Gauge({
    name: 'market_feed_relay_lag_seconds',
    help: 'Age of the oldest event the relay has not yet published; 0 when caught up. By relay.',
    labelNames: ['relay'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of await relayLag()) this.set({ relay: r.name }, r.seconds);
    },
  });
  const relays = new Set<RelayState>();
  new Gauge({
    name: 'market_feed_relay_connected',
    help: 'Whether the relay this instance runs is connected to NATS (1) or not (0, reconnecting). By relay.',
    labelNames: ['relay'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const r of relays) this.set({ relay: r.name }, r.connected() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'market_feed_relay_active',
    help: 'Whether the relay this instance runs holds the lease and publishes (1) or stands by (0). By relay.',
    labelNames: ['relay'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const r of relays) this.set({ relay: r.name }, r.active() ? 1 : 0);
    },
  });
  const relayFailures = new Counter({
    name: 'market_feed_relay_publish_failures_total',
    help: 'Rounds of publishing that failed (NATS unreachable, or JetStream refused or did not acknowledge); each hands the lease over. By relay.',
    labelNames: ['relay'] as const,
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: 'market_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome: succeeded (2xx), failed (another answer, a timeout, no connection), gone (410: the endpoint is disabled), not_sent (the URL resolves to an address not allowed).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const webhookLatency = new Histogram({
    name: 'market_webhook_attempt_duration_seconds',
    help: 'Time from connecting to a webhook endpoint to its answer (or the timeout), by outcome.',
    labelNames: ['outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [registry],
  });
  const webhookDeliveries = new Counter({
    name: 'market_webhook_deliveries_total',
    help: 'Webhook deliveries that reached their end, by outcome: succeeded (a 2xx, on any attempt), failed (no retry left, or the endpoint answered 410).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const webhookLag = new Histogram({
    name: 'market_webhook_delivery_lag_seconds',
    help: 'From an event’s commit to the 2xx of the receiver that got it (retries included), for deliveries of events (not test messages).',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86_400],
    registers: [registry],
  });
  // Read from the deliveries at scrape time, so every instance reports it, wherever the attempts run.
  const webhookBacklog = async () => {
    try {
      return await backlog(orm.em.fork(), clock());
    } catch {
      return []; // the schema predates webhooks (MIGRATE_ON_START=false), or the database is away
    }
  };
  new Gauge({
    name: 'market_webhook_backlog',
    help: 'Webhook deliveries waiting (pending or retrying), by endpoint id.',
    labelNames: ['endpoint'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const b of await webhookBacklog()) this.set({ endpoint: b.endpointId }, b.waiting);
    },
  });
  new Gauge({
    name: 'market_webhook_oldest_pending_seconds',
    help: 'Age of the oldest webhook delivery still waiting, by endpoint id; 0 when none waits.',
    labelNames: ['endpoint'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const b of await webhookBacklog()) this.set({ endpoint: b.endpointId }, b.oldestSeconds);
    },
  });
  return {
    // the app's metrics and the process's, served together (every metric above is registered by now)
    registry: Registry.merge([processMetrics(), registry]),
    webhookAttempt: (outcome, seconds) => {
      webhookAttempts.inc({ outcome });
      webhookLatency.observe({ outcome }, seconds);
    },
    webhookDelivered: (outcome, lagSeconds) => {
      webhookDeliveries.inc({ outcome });
      if (lagSeconds !== null) webhookLag.observe(Math.max(0, lagSeconds));
    },
    watchRelay: (relay) => {
      relays.add(relay);
      return () => void relays.delete(relay);
    },
    relayPublishFailure: (relay) => relayFailures.inc({ relay }),
    feedRead: (reader) => feedReads.inc({ reader }),
    tensionCommand: (command, outcome, code = '') => commands.inc({ command, outcome, code }),
    eventAppend: (seconds) => append.observe(seconds),
    loginFailure: () => loginFailures.inc(),
    rateLimited: (scope) => rateLimited.inc({ scope }),
    httpRequest: (labels, seconds) => {
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
    commandLane: () => laneAnswers.inc(),
  };
}

/** Route templates, never raw paths: a label per id would grow without bound. */
export function routeLabel(req: Request): string {
  const route = req.route as { path?: string | RegExp } | undefined;
  if (route?.path) return `${req.baseUrl}${String(route.path)}`;
  for (const prefix of ['/graphql', '/mcp', '/api/v1', '/healthz', '/readyz', '/metrics']) {
    if (req.originalUrl === prefix || req.originalUrl.startsWith(`${prefix}/`) || req.originalUrl.startsWith(`${prefix}?`)) return prefix;
  }
  return 'other';
}

/** Counts and times every request by method, route template and status. */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.httpRequest({ method: req.method, route: routeLabel(req), status: String(res.statusCode) }, seconds);
    });
    next();
  };
}

/** GET /metrics: off with METRICS=false; behind `Authorization: Bearer <METRICS_TOKEN>` when that is set. */
export function metricsEndpoint(metrics: Metrics, token: string | undefined): RequestHandler {
  const expected = token ? Buffer.from(`Bearer ${token}`) : null;
  return async (req: Request, res: Response) => {
    if (expected) {
      const got = Buffer.from(req.get('authorization') ?? '');
      if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
        res.setHeader('WWW-Authenticate', 'Bearer');
        return void res.status(401).type('text/plain').send('metrics need Authorization: Bearer <METRICS_TOKEN>\n');
      }
    }
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  };
}
