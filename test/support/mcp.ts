// MCP clients for tests, built with the official SDKs: over Streamable HTTP, and over stdio.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as Client2, StreamableHTTPClientTransport as StreamableHTTPClientTransport2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransport2 } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { TestApp } from './app.js';
import { cliCommand } from './builds.js';

export async function mcpHttpClient(app: TestApp, key: string): Promise<Client> {
  const client = new Client({ name: 'market-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/**
 * The 2.x SDK client speaking exactly `revision`: 2026-07-28 pinned (server/discover, then the version in
 * every request, no initialize), or a 2025 revision offered in initialize (the server must accept it as is).
 */
export async function mcpHttpClientAt(app: TestApp, key: string, revision: string): Promise<Client2> {
  const modern = revision >= '2026-07-28';
  const client = new Client2(
    { name: 'market-tests', version: '2.0.0' },
    modern ? { versionNegotiation: { mode: { pin: revision } } } : { supportedProtocolVersions: [revision] },
  );
  const transport = new StreamableHTTPClientTransport2(new URL(`${app.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  if (client.getNegotiatedProtocolVersion() !== revision) throw new Error(`negotiated ${client.getNegotiatedProtocolVersion()}, not ${revision}`);
  return client;
}

const stdioServer = (key: string, env: Record<string, string>) => {
  const [command, args] = cliCommand(['mcp']);
  return { command, args, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', MARKET_API_KEY: key, ...env }, stderr: 'pipe' as const };
};

/** `market-service mcp` with the 2.x SDK client pinned to a 2026 revision (server/discover, no initialize). */
export async function mcpStdioClientAt(key: string, env: Record<string, string>, revision: string): Promise<Client2> {
  const client = new Client2({ name: 'market-tests', version: '2.0.0' }, { versionNegotiation: { mode: { pin: revision } } });
  await client.connect(new StdioClientTransport2(stdioServer(key, env)));
  return client;
}

/** Spawns `market-service mcp` (from sources) against the given database environment. */
export async function mcpStdioClient(key: string, env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'market-tests', version: '1.0.0' });
  const transport = new StdioClientTransport(stdioServer(key, env));
  await client.connect(transport);
  return client;
}
