// `market-service mcp`: the same tools over stdio, authenticated by MARKET_API_KEY on every call.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { embeddedDataFolder } from '../persistence/embedded.js';
import { migrationStatus } from '../persistence/database.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CommandRun } from '../cli/commands.js';
import { authenticateApiKey, UNAUTHENTICATED } from '../auth/authenticate.js';
import { ok } from '../domain/errors.js';
import { makeDeps, openServiceDatabase, resolveSessionSecret } from '../runtime.js';
import { acceptAnyArguments, createMcpServer } from './server.js';

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
  if (!config.databaseUrl && !existsSync(embeddedDataFolder(resolve(config.dataDir)))) {
    console.error(`market-service mcp: no database in ${resolve(config.dataDir)}: start the service once (npm start), or set DATABASE_URL.`);
    return 1;
  }
  const db = await openServiceDatabase(config, logger, undefined, { migrate: false });
  const { pending } = await migrationStatus(db.orm);
  if (pending.length) {
    console.error(`market-service mcp: the database is not migrated (${pending.length} pending): run \`market-service migrate\` first.`);
    await db.close();
    return 1;
  }
  const deps = makeDeps(config, logger, db, await resolveSessionSecret(config));
  const server = createMcpServer(deps, async () => {
    const caller = await authenticateApiKey(deps, key);
    if (!caller.ok) return caller;
    return ok({ caller: caller.value, via: 'mcp' as const, requestId: randomUUID(), clientAddress: null });
  });
  const first = await authenticateApiKey(deps, key);
  if (!first.ok) {
    console.error(`market-service mcp: ${UNAUTHENTICATED(first.detail).detail}`);
    await db.close();
    return 2;
  }
  const transport = new StdioServerTransport();
  await server.connect(transport);
  acceptAnyArguments(transport);
  logger.info({ user: first.value.userName }, 'MCP server on stdio');
  await new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.on('end', () => resolve());
    process.on('SIGTERM', () => resolve());
    process.on('SIGINT', () => resolve());
  });
  await server.close();
  await db.close();
  return 0;
};
