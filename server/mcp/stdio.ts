// `market-service mcp`: the same tools over stdio, authenticated by MARKET_API_KEY on every call.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { embeddedDataFolder } from '../persistence/embedded.js';
import { migrationStatus } from '../persistence/database.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { CommandRun } from '../cli/commands.js';
import { authenticateApiKey, UNAUTHENTICATED } from '../auth/authenticate.js';
import { makeDeps, openServiceDatabase, resolveSessionSecret } from '../runtime.js';
import { guardToolCalls, createMcpServer } from './server.js';

/**
 * The SDK's stdio transport drops a line that is not JSON, or not a JSON-RPC message, reporting it only
 * to `onerror`; JSON-RPC asks for an answer (-32700 Parse error, -32600 Invalid Request) with id null,
 * since no id could be read. The transport reads on, so the server keeps serving.
 */
function answerUnreadableLines(transport: StdioServerTransport): void {
  const report = transport.onerror;
  transport.onerror = (error) => {
    report?.(error);
    const rpc = error instanceof SyntaxError
      ? { code: -32700, message: 'Parse error: a line that is not JSON. Send one JSON-RPC message per line.' }
      : error.name === 'ZodError' || 'issues' in error
        ? { code: -32600, message: 'Invalid Request: the line is JSON but not a JSON-RPC 2.0 message.' }
        : null;
    // id null: the JSON-RPC specification's answer when the request's id could not be read
    if (rpc) void transport.send({ jsonrpc: '2.0', id: null, error: rpc } as unknown as JSONRPCMessage);
  };
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
  guardToolCalls(transport);
  answerUnreadableLines(transport);
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
