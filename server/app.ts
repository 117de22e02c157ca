// buildApp(deps): one Express app serving /healthz, /readyz, /api/v1, /graphql, /mcp and the admin web build.
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';

import type { Deps } from './application/context.js';
import { accessLog, authenticateRequest, requestContext, type VerifyBearer } from './http/request-context.js';
import { authenticateApiKey } from './auth/authenticate.js';
import { commandLane, type CommandLaneParts } from './http/command-lane.js';
import { rateLimit, requestLimiter } from './http/rate-limit.js';
import { restErrors, restRouter } from './rest/router.js';
import { sendCode } from './rest/problem.js';
import { onlyMethods } from './rest/method-not-allowed.js';
import { cors } from './http/cors.js';
import { allowedHosts } from './http/allowed-hosts.js';
import { limitRequestLine } from './http/client-error.js';
import { securityHeaders } from './http/security-headers.js';
import { adminWeb } from './http/admin-web.js';
import { graphqlHandler } from './graphql/yoga.js';
import { mcpHandler } from './mcp/http.js';
import { oauth } from './oauth/http.js';
import { httpMetrics, metricsEndpoint, routeLabel } from './metrics.js';
import { httpTracing } from './tracing.js';
import { serviceVersion } from './version.js';

/** The admin web build, wherever this module runs from (sources under tsx, or dist/). */
function adminWebDist(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = join(dir, 'admin-web', 'dist');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    dir = resolve(dir, '..');
  }
  return null;
}

/** What /readyz reports beyond the database answering; the running service provides it. */
export interface Health {
  /** true once shutdown has begun */
  draining(): boolean;
  /** false while migrations this build ships are pending (MIGRATE_ON_START=false) */
  schemaCurrent(): Promise<boolean>;
}

export interface AppOptions {
  /** Who a bearer API key stands for; default `authenticateApiKey`. Only the bench swaps it (to price verification). */
  verifyBearer?: VerifyBearer;
  /**
   * false: every request goes through Express, the command lane's included (server/http/command-lane.ts).
   * Only the tests and the bench that compare the two lanes set it.
   */
  commandLane?: boolean;
  health?: Health;
  /** The admin web build to serve; default: found next to this module. Tests point it at a folder of their own. */
  webDist?: string | null;
}

function notFound(req: Request, res: Response, hint = ''): void {
  sendCode(res, 'not_found', `No route ${req.method} ${req.originalUrl.split('?')[0]}.${hint}`, req.requestId);
}

export function buildApp(deps: Deps, opts: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  // Which proxies may name the client (X-Forwarded-For) and the scheme (X-Forwarded-Proto): SPEC §6.
  app.set('trust proxy', deps.config.trustProxy);
  const limiter = requestLimiter(deps);
  const logAccess = accessLog(deps);
  const verifyBearer: VerifyBearer = opts.verifyBearer ?? ((bearer) => authenticateApiKey(deps, bearer));
  app.use(requestContext(deps, logAccess));
  app.use(limitRequestLine);
  app.use(httpTracing(routeLabel));
  app.use(httpMetrics(deps.metrics));
  app.use(allowedHosts(deps));
  // While draining, every answer asks the client to reconnect elsewhere, so keep-alive sockets end.
  app.use((_req, res, next) => {
    if (opts.health?.draining()) res.setHeader('Connection', 'close');
    next();
  });
  app.use(cors(deps));
  app.use(securityHeaders());

  const version = serviceVersion();
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', version });
  });
  app.get('/readyz', async (req, res) => {
    if (opts.health?.draining()) return void res.status(503).json({ status: 'stopping' });
    try {
      // Write-capable, not merely up: a standby or a database set read-only would refuse every write.
      const [probe] = await deps.orm.em
        .fork()
        .execute<{ recovery: boolean; read_only: string }[]>(`select pg_is_in_recovery() as recovery, current_setting('transaction_read_only') as read_only`);
      if (probe.recovery || probe.read_only === 'on') return void res.status(503).json({ status: 'read_only' });
      if (opts.health && !(await opts.health.schemaCurrent())) return void res.status(503).json({ status: 'migrations_pending' });
      res.json({ status: 'ready' });
    } catch (err) {
      req.log.warn({ err }, 'readiness check failed');
      res.status(503).json({ status: 'unavailable' });
    }
  });

  // Before authentication: its bearer token is METRICS_TOKEN, not an API key.
  if (deps.config.metrics) app.get('/metrics', metricsEndpoint(deps.metrics, deps.config.metricsToken));
  // SPEC §5: these paths serve GET only; another method is 405 with Allow, not the admin app's 404.
  app.all(['/healthz', '/readyz', ...(deps.config.metrics ? ['/metrics'] : [])], onlyMethods(['GET']));

  app.use(authenticateRequest(deps, verifyBearer));
  app.use(rateLimit(limiter, deps));
  // SPEC §13: the OAuth metadata, the authorization server under /oauth, and the token check in front of /mcp.
  const oauthFace = oauth(deps);
  app.use(oauthFace.router);
  app.use('/api/v1', restRouter(deps));
  const graphql = graphqlHandler(deps);
  app.use('/graphql', ...graphql.handlers);
  app.use('/mcp', oauthFace.mcpBearer, ...mcpHandler(deps));

  // Any other /.well-known/ path: a client probing it must read a JSON 404, never the admin app's HTML.
  app.use('/.well-known', (req: Request, res: Response) => notFound(req, res));
  const web = opts.webDist === undefined ? adminWebDist() : opts.webDist;
  if (web) app.use(adminWeb(web));

  app.use((req: Request, res: Response) => notFound(req, res));
  app.use((err: Error, req: Request, res: Response, next: NextFunction) => restErrors(deps)(err, req, res, next));

  if (opts.commandLane === false) return app;
  // Every request is offered to the command lane first (the service's server and the tests' alike).
  const routed = app as unknown as { handle: (req: IncomingMessage, res: ServerResponse, callback?: unknown) => void };
  const viaExpress = routed.handle.bind(app);
  const lane = commandLane(deps, {
    verifyBearer,
    limiter,
    logAccess,
    draining: () => opts.health?.draining() ?? false,
    trust: app.get('trust proxy fn') as CommandLaneParts['trust'],
    etag: app.get('etag fn') as CommandLaneParts['etag'],
    fallback: (req, res) => viaExpress(req, res),
    graphql: graphql.lane,
  });
  routed.handle = (req, res, callback) => {
    if (!lane(req, res)) viaExpress(req, res, callback);
  };
  return app;
}
