// buildApp(deps): one Express app serving /healthz, /readyz, /api/v1, /graphql, /mcp and the admin web build.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import helmet from 'helmet';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deps } from './application/context.js';
import { authenticateRequest, requestContext } from './http/request-context.js';
import { rateLimit } from './http/rate-limit.js';
import { BODY_LIMIT_BYTES, restErrors, restRouter } from './rest/router.js';
import { graphqlHandler } from './graphql/yoga.js';
import { mcpHandler } from './mcp/http.js';

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

/** package.json's version, for /healthz (SPEC §5), found the same way from sources and from dist/. */
function serviceVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = resolve(dir, '..')) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return 'unknown';
}

export interface AppOptions {
  /** Who is calling; default bearer key or session cookie. Only the bench swaps it (to price verification). */
  authenticate?: RequestHandler;
}

export function buildApp(deps: Deps, opts: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(requestContext(deps));
  // Security headers everywhere; GraphiQL's offline page inlines its script and styles, so only
  // /graphql may run inline code. No CORS middleware: cross-origin browser calls are refused by default.
  const strict = helmet({
    contentSecurityPolicy: { directives: { 'img-src': ["'self'", 'data:'], 'connect-src': ["'self'"] } },
  });
  const graphiql = helmet({
    contentSecurityPolicy: {
      directives: {
        'script-src': ["'self'", "'unsafe-inline'", 'blob:'],
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:'],
        'font-src': ["'self'", 'data:'],
        'worker-src': ["'self'", 'blob:'],
        'connect-src': ["'self'"],
      },
    },
  });
  app.use((req, res, next) => (req.path === '/graphql' ? graphiql : strict)(req, res, next));

  const version = serviceVersion();
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', version });
  });
  app.get('/readyz', async (req, res) => {
    try {
      await (deps.orm.em.fork() as EntityManager).execute('select 1');
      res.json({ status: 'ready' });
    } catch (err) {
      req.log.warn({ err }, 'readiness check failed');
      res.status(503).json({ status: 'unavailable' });
    }
  });

  app.use(opts.authenticate ?? authenticateRequest(deps));
  app.use(rateLimit(deps));
  app.use('/api/v1', restRouter(deps));
  app.use('/graphql', graphqlHandler(deps));
  app.use('/mcp', express.json({ limit: BODY_LIMIT_BYTES }), mcpHandler(deps));

  const web = adminWebDist();
  if (web) {
    app.use(express.static(web, { index: false, maxAge: '1h' }));
    // Client-side routes: browsers asking for a page get the app; API clients get a 404 problem.
    app.get(/^\/(?!api\/|graphql|mcp).*/, (req, res, next) => {
      if (req.accepts(['text/html', 'application/json']) !== 'text/html') return next();
      res.sendFile(join(web, 'index.html'));
    });
  }

  app.use((req: Request, res: Response) => {
    res.status(404).type('application/problem+json').send(
      JSON.stringify({ type: 'urn:market-service:problem:not_found', title: 'Not found', status: 404, code: 'not_found', detail: `No route ${req.method} ${req.path}.`, requestId: req.requestId }),
    );
  });
  app.use((err: Error, req: Request, res: Response, next: NextFunction) => restErrors(deps)(err, req, res, next));
  return app;
}
