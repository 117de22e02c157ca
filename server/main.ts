// Entry: config → database → app → listen → graceful shutdown.
import type { Server } from 'node:http';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { buildApp, type AppOptions, type Health } from './app.js';
import { makeDeps, openServiceDatabase, resolveSessionSecret } from './runtime.js';
import { bootstrap } from './persistence/bootstrap.js';
import { migrationStatus } from './persistence/database.js';
import { deleteExpiredOAuthRows } from './persistence/oauth-store.js';
import { deleteExpired } from './persistence/housekeeping.js';
import { reportBufferSizing } from './persistence/buffer-sizing.js';
import { LOGIN_WINDOW_MS } from './application/auth/throttle.js';

import { sqlTracing, startTracing } from './tracing.js';
import { serviceVersion } from './version.js';
import type { EmbeddedDatabase } from './persistence/embedded.js';
import { serveConnections } from './http/client-error.js';

export interface RunningService {
  url: string;
  /** Graceful stop: /readyz 503 at once, the grace period, then in-flight requests finish and the database closes. */
  close(): Promise<void>;
}

/** After the grace period, how long in-flight requests may take before their sockets are cut. */
const DRAIN_LIMIT_MS = 30_000;
/** How often expired sessions, stale login attempts and expired idempotent answers are deleted (each instance; the deletes are idempotent). */
const HOUSEKEEPING_MS = 10 * 60_000;

export async function startService(config: Config, logger: Logger, appOptions: AppOptions = {}, embedded?: Promise<EmbeddedDatabase>): Promise<RunningService> {
  const stopTracing = config.otlpEndpoint ? await startTracing({ serviceVersion: serviceVersion(), exporter: config.tracesExporter }) : undefined;
  const sessionSecret = await resolveSessionSecret(config);
  const db = await openServiceDatabase(config, logger, embedded, { migrate: config.migrateOnStart, timeouts: true });
  const deps = makeDeps(config, logger, db, sessionSecret);
  if (stopTracing) sqlTracing(db.orm);

  const firstStart = async () => {
    const boot = await bootstrap(db.orm, {
      adminEmail: config.adminEmail,
      adminPassword: config.adminPassword,
      passwordHashing: config.passwordHashing,
      newId: deps.newId,
      clock: deps.clock,
    });
    if (!boot.adminCreated) return;
    logger.info({ email: boot.email }, 'first start: admin user created');
    if (boot.generatedPassword) {
      // Printed once, to the terminal only (never through the logger).
      process.stdout.write(
        `\n  First start: an admin was created.\n    email:    ${boot.email}\n    password: ${boot.generatedPassword}\n  Keep it now: it is not shown again.\n\n`,
      );
    }
  };

  // With MIGRATE_ON_START=false the schema may lag this build: serve /readyz 503 (and nothing else is
  // promised) until `market-service migrate` has run, then bootstrap once and report ready.
  let schemaReady: Promise<boolean> | undefined;
  const schemaCurrent = async (): Promise<boolean> => {
    const attempt = (schemaReady ??= (async () => {
      if ((await migrationStatus(db.orm)).pending.length) return false;
      await firstStart();
      return true;
    })());
    const current = await attempt.catch(() => false);
    if (!current) schemaReady = undefined; // ask again on the next probe
    return current;
  };
  if (!(await schemaCurrent())) logger.warn('migrations are pending: /readyz answers 503 until `market-service migrate` runs');
  // PostgreSQL only: the embedded database's buffers are fixed (32 MB) and it serves one machine's small data
  else if (db.traits.kind === 'postgres') void reportBufferSizing(db.orm.em.fork(), logger);

  const housekeeping = async () => {
    if (!(await schemaCurrent())) return;
    try {
      const gone = await deleteExpired(db.orm.em.fork(), deps.clock(), LOGIN_WINDOW_MS);
      if (gone.sessions || gone.loginAttempts || gone.idempotencyKeys) logger.info(gone, 'housekeeping: expired rows deleted');
      const oauthRows = await deleteExpiredOAuthRows(db.orm.em.fork(), deps.clock());
      if (oauthRows) logger.info({ oauthRows }, 'housekeeping: expired OAuth codes, tokens and grants deleted');
      // renames whose tensions were not all rewritten (a stop, a crash, a rename outside the service)
      await deps.partyNames.run();
    } catch (err) {
      logger.warn({ err }, 'housekeeping failed; retried at the next interval');
    }
  };
  void housekeeping();
  const sweeper = setInterval(() => void housekeeping(), HOUSEKEEPING_MS);
  sweeper.unref();

  // The in-process relay (NATS_URL set): one of the instances holds the lease and publishes, the others stand
  // by. It connects in the background: the API does not need NATS, so a NATS outage never stops a start.
  const relay = config.natsUrl
    ? await (
        await import('./relay/nats-relay.js')
      ).startNatsRelay({
        orm: db.orm,
        logger,
        natsUrl: config.natsUrl,
        subjectPrefix: config.natsSubjectPrefix,
        stream: config.natsStream,
        leaseMs: config.relayLeaseMs,
        metrics: deps.metrics,
      })
    : undefined;

  // The webhook dispatcher (SPEC §14): every instance runs one unless WEBHOOKS=false; they share the work through the database.
  const webhooks = config.webhooks
    ? (await import('./application/webhooks/dispatcher.js')).startWebhookDispatcher({
        orm: db.orm,
        logger,
        clock: deps.clock,
        newId: deps.newId,
        metrics: deps.metrics,
        resolveHost: deps.resolveHost,
        allowPrivate: config.webhookAllowPrivate,
        concurrency: config.webhookConcurrency,
        leaseMs: config.webhookLeaseMs,
      })
    : undefined;

  let draining = false;
  const health: Health = { draining: () => draining, schemaCurrent };
  const app = buildApp(deps, { ...appOptions, health });
  const server: Server = await new Promise((resolveListen, reject) => {
    const s = app.listen(config.port, config.host, () => resolveListen(s));
    s.once('error', reject);
  });
  serveConnections(server, logger);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, database: db.kind }, 'market service listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    close: () =>
      (closing ??= (async () => {
        draining = true;
        clearInterval(sweeper);
        if (config.shutdownGraceMs > 0) {
          logger.info({ graceMs: config.shutdownGraceMs }, 'draining: /readyz answers 503 while requests are still served');
          await new Promise((r) => setTimeout(r, config.shutdownGraceMs));
        }
        // Stop accepting; keep-alive sockets close as soon as they are idle (a request that began before
        // the signal finishes first); sockets still busy after the limit are cut.
        await relay?.stop().catch((err: unknown) => logger.warn({ err }, 'stopping the relay failed'));
        // Attempts in flight finish (at most their timeout); what is queued waits in the database for any instance.
        await webhooks?.stop().catch((err: unknown) => logger.warn({ err }, 'stopping the webhook dispatcher failed'));
        // Open event streams and long polls end now (clients resume with Last-Event-ID elsewhere).
        await deps.feed.close();
        const closed = new Promise<void>((r) => server.close(() => r()));
        server.closeIdleConnections();
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const cut = setTimeout(() => server.closeAllConnections(), DRAIN_LIMIT_MS);
        await closed;
        clearInterval(sweep);
        clearTimeout(cut);
        await db.close();
        await stopTracing?.().catch((err: unknown) => logger.warn({ err }, 'flushing traces failed'));
      })()),
  };
}
