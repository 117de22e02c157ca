// The `market-service` command: start, migrate (later issues add projections, users, mcp).
import { resolve as resolvePath } from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { createLogger, pinoStderr } from '../logger.js';
import { commands as extraCommands } from './commands.js';

const USAGE = `Usage: market-service <command>

Commands:
  start                         run the HTTP server (GraphQL, REST, MCP, admin web)
  migrate                       apply pending database migrations and exit
${extraCommands.map((c) => `  ${c.usage.padEnd(30)}${c.summary}`).join('\n')}

Configuration comes from the environment; see README.md.`;

/** Starts the embedded database without waiting; only light modules are loaded first. */
function bootEmbeddedEarly(config: Config) {
  const booting = (async () => {
    const { startEmbedded } = await import('../persistence/embedded.js');
    return startEmbedded({ dataDir: resolvePath(config.dataDir), maxConnections: config.dbPoolMax + 2 });
  })();
  booting.catch(() => undefined); // awaited, and its failure reported, by startService
  return booting;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return command ? 0 : 1;
  }
  const config = loadConfig();
  const logger = createLogger(config.logLevel, command === 'mcp' ? pinoStderr() : undefined);

  if (command === 'start') {
    // The embedded database boots on its worker thread while the server's modules load.
    const embedded = config.databaseUrl ? undefined : bootEmbeddedEarly(config);
    const { startService } = await import('../main.js');
    const service = await startService(config, logger, {}, embedded);
    console.log(`Market service ready at ${service.url}  (GraphiQL: ${service.url}/graphql, REST: ${service.url}/api/v1)`);
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      const force = setTimeout(() => process.exit(1), 10_000);
      force.unref();
      service.close().then(
        () => process.exit(0),
        (err) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    return -1; // keep running
  }
  if (command === 'migrate') {
    const { openServiceDatabase } = await import('../runtime.js');
    const db = await openServiceDatabase(config, logger);
    await db.close();
    console.log('Database is up to date.');
    return 0;
  }
  const extra = extraCommands.find((c) => c.name === command);
  if (extra) return (await extra.load())(rest, { config, logger });
  console.error(`Unknown command: ${command}\n\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    if (err instanceof ConfigError) console.error(err.message);
    else console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
