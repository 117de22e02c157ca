// Bench-only build: the built service with bearer verification short-circuited to one fixed caller
// (BENCH_CALLER, JSON), to price verification against the same route. Never shipped, never in dist/.
import { loadConfig } from '../../dist/server/config.js';
import { createLogger } from '../../dist/server/logger.js';
import { startService } from '../../dist/server/main.js';

const caller = JSON.parse(process.env.BENCH_CALLER ?? 'null');
if (!caller) throw new Error('BENCH_CALLER is required');
const config = loadConfig();
const logger = createLogger(config.logLevel);
const service = await startService(config, logger, {
  verifyBearer: async () => ({ ok: true, value: caller }),
});
process.on('SIGTERM', () => service.close().then(() => process.exit(0)));
