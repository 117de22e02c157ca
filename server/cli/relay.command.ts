// `market-service relay nats`: relays the event feed to NATS JetStream until SIGTERM/SIGINT (SPEC §10).
// NATS_URL (default nats://127.0.0.1:4222), NATS_SUBJECT_PREFIX, NATS_STREAM and RELAY_LEASE_MS configure it.
import { parseArgs } from 'node:util';
import { openServiceDatabase } from '../runtime.js';
import { startNatsRelay } from '../relay/nats-relay.js';
import type { CommandRun } from './commands.js';

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

function parse(args: string[]): true | null {
  try {
    const { positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
    return positionals.length === 1 && positionals[0] === 'nats' ? true : null;
  } catch {
    return null;
  }
}

export const runRelay: CommandRun = async (args, { config, logger }) => {
  if (!parse(args)) {
    console.error('Usage: market-service relay nats');
    return 2;
  }
  // The relay migrates nothing: it follows a database a service already serves.
  const db = await openServiceDatabase(config, logger, undefined, { migrate: false });
  try {
    const relay = await startNatsRelay({
      orm: db.orm,
      logger,
      natsUrl: config.natsUrl ?? DEFAULT_NATS_URL,
      subjectPrefix: config.natsSubjectPrefix,
      stream: config.natsStream,
      leaseMs: config.relayLeaseMs,
    });
    // NATS need not be up: the relay connects (and reconnects) in the background and says so in the log.
    logger.info(
      { id: relay.id, stream: config.natsStream, prefix: config.natsSubjectPrefix },
      'relay started (standing by until NATS answers and it holds the lease)',
    );
    await new Promise<void>((resolve) => {
      const stop = () => void relay.stop().then(resolve, resolve);
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
    logger.info('relay stopped');
    return 0;
  } finally {
    await db.close();
  }
};
