// MCP clients for tests, built with the official SDK: over Streamable HTTP, and over stdio.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { TestApp } from './app.js';

export async function mcpHttpClient(app: TestApp, key: string): Promise<Client> {
  const client = new Client({ name: 'market-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/** Spawns `market-service mcp` (from sources) against the given database environment. */
export async function mcpStdioClient(key: string, env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'market-tests', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'server/cli/main.ts', 'mcp'],
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', MARKET_API_KEY: key, ...env },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return client;
}
