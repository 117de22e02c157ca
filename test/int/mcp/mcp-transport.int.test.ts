import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { seedDeps, seedUserWithKey } from '../../support/clients.js';
import { mcpHttpClient, mcpStdioClient, mcpStdioClientAt } from '../../support/mcp.js';
import { migrate, openDatabase } from '../../../server/persistence/database.js';
import { onPostgres } from '../../support/database.js';
import { cliCommand } from '../../support/builds.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

describe('MCP over Streamable HTTP', () => {
  it('refuses a request without a bearer key, and a cookie alone, with 401 and WWW-Authenticate', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const anonymous = await fetch(`${app.url}/mcp`, { method: 'POST', headers, body });
    expect(anonymous.status).toBe(401);
    // SPEC §13: the challenge points OAuth clients to the protected-resource metadata
    expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${app.deps.config.publicUrl}/.well-known/oauth-protected-resource/mcp"`);
    const cookieOnly = await fetch(`${app.url}/mcp`, { method: 'POST', headers: { ...headers, cookie: 'session=whatever' }, body });
    expect(cookieOnly.status).toBe(401);
  });

  it('initializes, lists whoami for any key and answers it with the caller', async () => {
    const agent = await seedUserWithKey(app, { type: 'agent', grants: [] });
    const client = await mcpHttpClient(app, agent.key);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('whoami');
      const whoami = tools.find((t) => t.name === 'whoami')!;
      expect(whoami.annotations?.readOnlyHint).toBe(true);
      expect(whoami.outputSchema).toBeDefined();
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        user: { id: agent.userId, name: agent.name, type: 'agent' },
        authenticatedBy: 'api_key',
        apiKey: { id: agent.keyId },
        permissions: [],
      });
    } finally {
      await client.close();
    }
  });

  it('answers an unknown tool and bad arguments with coded error results', async () => {
    const agent = await seedUserWithKey(app, { type: 'agent', grants: [] });
    const client = await mcpHttpClient(app, agent.key);
    try {
      const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
      expect(unknown.isError).toBe(true);
      expect(unknown.structuredContent).toMatchObject({ code: 'not_found' });
      const bad = await client.callTool({ name: 'whoami', arguments: { surprise: 1 } });
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent).toMatchObject({ code: 'validation_failed' });
    } finally {
      await client.close();
    }
  });
});

describe('MCP over stdio (market-service mcp)', () => {
  let client: Client | undefined;
  let dataDir: string | undefined;
  let env: Record<string, string>;
  let agentKey: string;

  beforeAll(async () => {
    if (onPostgres) {
      env = { DATABASE_URL: app.db.url! };
      agentKey = (await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read'] })).key;
    } else {
      // The embedded database is one process's: give the stdio server its own data folder.
      dataDir = await mkdtemp(join(tmpdir(), 'mcp-stdio-'));
      const db = await openDatabase({ dataDir, poolMax: 2 });
      await migrate(db.orm);
      agentKey = (await seedUserWithKey({ deps: seedDeps(db) }, { type: 'agent', grants: ['tensions:read'] })).key;
      await db.close();
      env = { DATA_DIR: dataDir };
    }
    client = await mcpStdioClient(agentKey, env);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('serves the same registry: whoami answers as the key from MARKET_API_KEY', async () => {
    const { tools } = await client!.listTools();
    expect(tools.map((t) => t.name)).toContain('whoami');
    const result = await client!.callTool({ name: 'whoami', arguments: {} });
    expect(result.structuredContent).toMatchObject({ user: { type: 'agent' }, permissions: ['tensions:read'] });
  });

  it('serves a 2026-07-28 client too: server/discover first, then the same tools, no initialize', async () => {
    // the embedded database is one process's: the 1.x client's server goes first
    await client?.close();
    client = undefined;
    const modern = await mcpStdioClientAt(agentKey, env, '2026-07-28');
    try {
      expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(modern.getDiscoverResult()).toMatchObject({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} } });
      expect((await modern.listTools()).tools.map((t) => t.name)).toContain('list_tensions');
      const me = await modern.callTool({ name: 'whoami', arguments: {} });
      expect(me.structuredContent).toMatchObject({ user: { type: 'agent' }, permissions: ['tensions:read'] });
    } finally {
      await modern.close();
    }
  }, 60_000);

  // Last in this block: the embedded database is one process's, so the SDK client's server goes first.
  it('answers a line that is not JSON with a -32700 parse error (id null) and keeps serving', async () => {
    await client?.close();
    client = undefined;
    const child = spawn(...cliCommand(['mcp']), {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', MARKET_API_KEY: agentKey, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const lines = createInterface({ input: child.stdout });
    const answers: any[] = [];
    const waiters: (() => void)[] = [];
    lines.on('line', (line) => {
      answers.push(JSON.parse(line));
      waiters.splice(0).forEach((w) => w());
    });
    const next = async () => {
      while (!answers.length) await new Promise<void>((r) => waiters.push(r));
      return answers.shift();
    };
    try {
      const send = (text: string) => child.stdin.write(`${text}\n`);
      send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      );
      expect((await next()).id).toBe(1);
      send('this is not json {');
      expect(await next()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } });
      send(JSON.stringify({ hello: 'json, but not JSON-RPC' }));
      expect(await next()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: 'text' } }));
      expect(await next()).toMatchObject({ id: 2, error: { code: -32602, data: { code: 'validation_failed' } } });
      send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'whoami', arguments: {} } }));
      expect(await next()).toMatchObject({ id: 3, result: { structuredContent: { user: { type: 'agent' } } } });
    } finally {
      child.stdin.end();
      await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(null)));
    }
  }, 60_000);
});
