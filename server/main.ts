// Entry: config → database → app → listen → graceful shutdown.
import type { Server } from 'node:http';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { buildApp, type AppOptions } from './app.js';
import { makeDeps, openServiceDatabase, resolveSessionSecret } from './runtime.js';
import { bootstrap } from './persistence/bootstrap.js';
import type { EmbeddedDatabase } from './persistence/embedded.js';

export interface RunningService {
  url: string;
  close(): Promise<void>;
}

export async function startService(
  config: Config,
  logger: Logger,
  appOptions: AppOptions = {},
  embedded?: Promise<EmbeddedDatabase>,
): Promise<RunningService> {
  const sessionSecret = await resolveSessionSecret(config);
  const db = await openServiceDatabase(config, logger, embedded);
  const deps = makeDeps(config, logger, db, sessionSecret);
  const boot = await bootstrap(db.orm, {
    adminEmail: config.adminEmail,
    adminPassword: config.adminPassword,
    newId: deps.newId,
    clock: deps.clock,
  });
  if (boot.adminCreated) {
    logger.info({ email: boot.email }, 'first start: admin user created');
    if (boot.generatedPassword) {
      // Printed once, to the terminal only (never through the logger).
      process.stdout.write(
        `\n  First start: an admin was created.\n    email:    ${boot.email}\n    password: ${boot.generatedPassword}\n  Keep it now: it is not shown again.\n\n`,
      );
    }
  }

  const app = buildApp(deps, appOptions);
  const server: Server = await new Promise((resolveListen, reject) => {
    const s = app.listen(config.port, config.host, () => resolveListen(s));
    s.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, database: db.kind }, 'market service listening');

  let closing: Promise<void> | undefined;
  return {
    url,
    close: () =>
      (closing ??= (async () => {
        // Stop accepting, let in-flight requests finish, then close the pool and the database.
        await new Promise<void>((r) => {
          server.close(() => r());
          server.closeIdleConnections();
        });
        await db.close();
      })()),
  };
}
