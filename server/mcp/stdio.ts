// `market-service mcp`: the same tools over stdio, authenticated by MARKET_API_KEY on every call.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { embeddedDataFolder } from '../persistence/embedded.js';
import { migrationStatus, type Database } from '../persistence/database.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { CommandRun } from '../cli/commands.js';
import { authenticateApiKey, UNAUTHENTICATED } from '../auth/authenticate.js';
import { ok } from '../domain/errors.js';
import { existingSessionSecret, makeDeps, openServiceDatabase } from '../runtime.js';
import { createMcpServer } from './server.js';
import { guardedLines } from './stdio-lines.js';

/** PostgreSQL's "database does not exist" (SQLSTATE 3D000). */
const isMissingDatabase = (err: unknown) =>
  (err as { code?: string } | null)?.code === '3D000' || /does not exist/.test(String((err as Error | null)?.message));

/**
 * The configured database, when it exists and is migrated to this build; otherwise a sentence on stderr
 * (this process's stdout is the MCP channel) and null. An AI host starts this command in a working folder
 * of its own: creating `./.data` or a database there would hide the real mistake behind "unknown key".
 */
async function openExisting(config: Config, logger: Logger): Promise<Database | null> {
  const where = config.databaseUrl ? redactedUrl(config.databaseUrl) : resolve(config.dataDir);
  if (!config.databaseUrl && !existsSync(embeddedDataFolder(resolve(config.dataDir)))) {
    console.error(
      `market-service mcp: no database in ${where}. Start the service once there (npm start) to create it, ` +
        'point DATA_DIR at its data folder, or set DATABASE_URL.',
    );
    return null;
  }
  let db: Database | undefined;
  try {
    db = await openServiceDatabase(config, logger, undefined, { migrate: false, create: false });
    const { pending } = await migrationStatus(db.orm);
    if (!pending.length) return db;
    console.error(`market-service mcp: the database at ${where} is not migrated (${pending.length} pending): run \`market-service migrate\` first.`);
  } catch (err) {
    console.error(
      isMissingDatabase(err)
        ? `market-service mcp: the database at ${where} does not exist. Create it and run \`market-service migrate\`, or fix DATABASE_URL.`
        : `market-service mcp: cannot open the database at ${where}: ${(err as Error).message}`,
    );
  }
  await db?.close();
  return null;
}

/** The URL without its password, for messages. */
function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'DATABASE_URL';
  }
}

export const runMcp: CommandRun = async (args, { config, logger }) => {
  if (args.length) {
    console.error('Usage: market-service mcp   (the key comes from MARKET_API_KEY; no arguments)');
    return 2;
  }
  const key = process.env.MARKET_API_KEY;
  if (!key) {
    console.error('market-service mcp: set MARKET_API_KEY to the API key the MCP client acts as.');
    return 2;
  }
  // SPEC §8: the stdio server serves an existing database; it never creates or migrates one.
  const db = await openExisting(config, logger);
  if (!db) return 1;
  // A secret kept by the service, or one for this process only (list cursors then last as long as it does).
  const deps = makeDeps(config, logger, db, (await existingSessionSecret(config)) ?? randomBytes(48).toString('base64url'));
  const resolveCtx = async () => {
    const caller = await authenticateApiKey(deps, key);
    if (!caller.ok) return caller;
    return ok({ caller: caller.value, via: 'mcp' as const, requestId: randomUUID(), clientAddress: null });
  };
  const first = await authenticateApiKey(deps, key);
  if (!first.ok) {
    console.error(`market-service mcp: ${UNAUTHENTICATED(first.detail).detail}`);
    await db.close();
    return 2;
  }
  // One factory for both eras: a 2026-07-28 client opens with server/discover, a 2025 one with initialize.
  const reply = (message: unknown) => void process.stdout.write(`${JSON.stringify(message)}\n`);
  const transport = new StdioServerTransport(guardedLines(process.stdin, reply), process.stdout);
  const served = serveStdio(() => createMcpServer(deps, resolveCtx), {
    transport,
    onerror: (err) => logger.debug({ err }, 'mcp stdio message refused'),
  });
  logger.info({ user: first.value.userName }, 'MCP server on stdio');
  await new Promise<void>((resolve) => {
    process.stdin.on('end', () => resolve());
    process.on('SIGTERM', () => resolve());
    process.on('SIGINT', () => resolve());
  });
  await served.close();
  await db.close();
  return 0;
};
