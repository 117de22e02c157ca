// `market-service mcp`: the same tools over stdio, authenticated by MARKET_API_KEY on every call.
import { randomUUID } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CommandRun } from '../cli/commands.js';
import { authenticateApiKey, UNAUTHENTICATED } from '../auth/authenticate.js';
import { makeDeps, openServiceDatabase, resolveSessionSecret } from '../runtime.js';
import { createMcpServer } from './server.js';

export const runMcp: CommandRun = async (_args, { config, logger }) => {
  const key = process.env.MARKET_API_KEY;
  if (!key) {
    console.error('market-service mcp: set MARKET_API_KEY to the API key the MCP client acts as.');
    return 2;
  }
  const db = await openServiceDatabase(config, logger);
  const deps = makeDeps(config, logger, db, await resolveSessionSecret(config));
  const server = createMcpServer(deps, async () => {
    const caller = await authenticateApiKey(deps, key);
    if ('ok' in caller) return caller;
    return { caller, via: 'mcp', requestId: randomUUID() };
  });
  const first = await authenticateApiKey(deps, key);
  if ('ok' in first) {
    console.error(`market-service mcp: ${UNAUTHENTICATED(first.detail).detail}`);
    await db.close();
    return 2;
  }
  const transport = new StdioServerTransport();
  await server.connect(transport);
  logger.info({ user: first.userName }, 'MCP server on stdio');
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
