// Boots the real app on a real (fresh) database, listening on a loopback port, for integration tests.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { buildApp, type AppOptions } from '../../server/app.js';
import { loadConfig, type Config } from '../../server/config.js';
import { createLogger } from '../../server/logger.js';
import type { Deps } from '../../server/application/context.js';
import { bootstrap } from '../../server/persistence/bootstrap.js';
import { createMetrics } from '../../server/metrics.js';
import { withInstanceParts } from '../../server/runtime.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { serveConnections } from '../../server/http/client-error.js';
import { inject } from 'vitest';
import { ADMIN } from './admin.js';

export { ADMIN };

export interface TestApp {
  url: string;
  deps: Deps;
  db: TestDatabase;
  /** the listening HTTP server (its connections are the server's side of the tests' sockets) */
  server: Server;
  /** a fresh EntityManager for direct SQL checks */
  em(): EntityManager;
  close(): Promise<void>;
}

/** `database`: serve an existing database (e.g. one another process wrote) instead of a fresh one. */
export async function startTestApp(
  overrides: Partial<Config> = {},
  deps: Partial<Deps> = {},
  database?: TestDatabase,
  appOptions: AppOptions = {},
): Promise<TestApp> {
  const db = database ?? (await createTestDatabase());
  const config: Config = { ...loadConfig({ NODE_ENV: 'test', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', PASSWORD_HASHING: 'floor' }), ...overrides };
  const fullDeps: Deps = withInstanceParts(db, {
    orm: db.orm,
    config,
    logger: createLogger(config.logLevel),
    clock: () => new Date(),
    newId: randomUUID,
    sessionSecret: 'test-session-secret-that-is-long-enough-0123456789',
    metrics: createMetrics(db.orm, deps.clock),
    ...deps,
  });
  // The hash global-setup.ts made of ADMIN.password (argon2id at SPEC's floor, as every hash the suite makes), not one per file.
  await bootstrap(db.orm, {
    adminEmail: ADMIN.email,
    adminPasswordHash: inject('adminPasswordHash'),
    passwordHashing: config.passwordHashing,
    newId: randomUUID,
    clock: fullDeps.clock,
  });
  const app = buildApp(fullDeps, appOptions);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  // as the service's own server: the tests' clients reuse sockets as production's do
  serveConnections(server, fullDeps.logger);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    deps: fullDeps,
    db,
    server,
    em: () => db.orm.em.fork(),
    async close() {
      await fullDeps.feed.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await db.close();
    },
  };
}
