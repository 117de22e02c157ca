// The `market-service` command: start, migrate [status], and the areas' subcommands (commands.ts).
import { resolve as resolvePath } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { bufferedStdout, createLogger, errorText, pinoStderr } from '../logger.js';
import { commands as extraCommands } from './commands.js';

const USAGE = `Usage: market-service <command>

Commands:
  start                         run the HTTP server (GraphQL, REST, MCP, admin web)
  migrate                       apply pending database migrations and exit
  migrate status                list applied and pending migrations (changes nothing)
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

/** Usage on stderr and exit code 2: the conventional answer to a command line we do not understand. */
function usageError(problem: string): number {
  console.error(`${problem}\n\n${USAGE}`);
  return 2;
}

/** `args` must match exactly: these positionals, no flags. null when they do; the refusal's exit code otherwise. */
function strictArgs(command: string, args: string[], positionals: string[][]): number | null {
  try {
    const parsed = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
    if (positionals.some((p) => p.length === parsed.positionals.length && p.every((v, i) => v === parsed.positionals[i]))) return null;
    return usageError(`market-service ${command}: unexpected arguments: ${args.join(' ')}`);
  } catch (err) {
    return usageError(`market-service ${command}: ${(err as Error).message}`);
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (!command) return usageError('market-service: a command is required.');
  const extra = extraCommands.find((c) => c.name === command);
  if (!extra && command !== 'start' && command !== 'migrate') return usageError(`Unknown command: ${command}`);
  const refused = command === 'start' ? strictArgs(command, rest, [[]]) : command === 'migrate' ? strictArgs(command, rest, [[], ['status']]) : null;
  if (refused !== null) return refused;

  const config = loadConfig();
  const logger = createLogger(config.logLevel, command === 'mcp' ? pinoStderr() : command === 'start' ? bufferedStdout(config.logBufferMs) : undefined);

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
      // A last resort past the grace period and the drain limit (startService bounds both).
      const force = setTimeout(() => process.exit(1), config.shutdownGraceMs + 45_000);
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
    const { migrationStatus } = await import('../persistence/database.js');
    const status = rest[0] === 'status';
    const db = await openServiceDatabase(config, logger, undefined, { migrate: !status });
    try {
      const { applied, pending } = await migrationStatus(db.orm);
      if (!status) {
        console.log('Database is up to date.');
        return 0;
      }
      for (const name of applied) console.log(`applied  ${name}`);
      for (const name of pending) console.log(`pending  ${name}`);
      console.log(`${applied.length} applied, ${pending.length} pending`);
      return 0;
    } finally {
      await db.close();
    }
  }
  return (await extra!.load())(rest, { config, logger });
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    if (err instanceof ConfigError) console.error(err.message);
    // a failed statement's text and values stay out of stderr, as out of the logs
    else console.error(errorText(err));
    process.exit(1);
  },
);
