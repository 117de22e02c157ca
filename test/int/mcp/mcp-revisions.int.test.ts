// SPEC §8: one /mcp for every published revision from 2025-03-26 to 2026-07-28, the stateless 2026 form
// included; a revision it does not serve gets UnsupportedProtocolVersionError with the ones it does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { mcpHttpClientAt } from '../../support/mcp.js';
import { runTensionLifecycle } from '../../support/mcp-lifecycle.js';
import { MCP_HEADERS, raw } from '../../support/raw-http.js';
import { MCP_PROTOCOL_VERSIONS } from '../../../server/mcp/server.js';

const MODERN = '2026-07-28';
const envelope = (version: string) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

/** One 2026-form request: the version in `_meta` and in MCP-Protocol-Version, the method (and name) in headers too. */
function modern(key: string | undefined, method: string, params: Record<string, unknown> = {}, version = MODERN) {
  const headers: Record<string, string> = { ...MCP_HEADERS, 'mcp-protocol-version': version, 'mcp-method': method };
  if (key) headers.authorization = `Bearer ${key}`;
  if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  return raw(app, 'POST', '/mcp', headers, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: envelope(version) } }));
}

let app: TestApp;
let admin: SeededUser;
let actorA: string;
let actorB: string;
let lead: SeededUser;

beforeAll(async () => {
  app = await startTestApp();
  admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'], name: 'Root agent' });
  const rest = client(app, admin.key);
  actorA = (await rest.post('/actors', { name: 'Org A', type: 'organization' })).body.id;
  actorB = (await rest.post('/actors', { name: 'Org B', type: 'organization' })).body.id;
  lead = await seedUserWithKey(app, { type: 'human', grants: [], name: 'Alice' });
});
afterAll(async () => {
  await app?.close();
});

describe('clients of every revision', () => {
  it.each([MODERN, '2025-06-18'])('a %s client runs the agent lifecycle', async (revision) => {
    const agent = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:read'], name: `Bot ${revision}` });
    const c = await mcpHttpClientAt(app, agent.key, revision);
    try {
      const outcome = await runTensionLifecycle(c, { actorA, actorB, leadUserId: lead.userId });
      expect(outcome.discard.event).toMatchObject({ type: 'TensionDiscarded', by: { via: 'mcp', userId: agent.userId } });
    } finally {
      await c.close();
    }
  });

  it.each(MCP_PROTOCOL_VERSIONS)('a %s client lists only what its grants allow, and is refused the rest as forbidden', async (revision) => {
    const reader = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read'] });
    const c = await mcpHttpClientAt(app, reader.key, revision);
    try {
      const names = (await c.listTools()).tools.map((t) => t.name);
      expect(names).toContain('list_tensions');
      expect(names).not.toContain('sense_tension');
      const refused = await c.callTool({ name: 'sense_tension', arguments: { name: 'x', actorId: actorA } });
      expect(refused).toMatchObject({ isError: true, structuredContent: { code: 'forbidden' } });
      const me = await c.callTool({ name: 'whoami', arguments: {} });
      expect(me.structuredContent).toMatchObject({ user: { id: reader.userId }, permissions: ['tensions:read'] });
    } finally {
      await c.close();
    }
  });
});

describe('the 2026-07-28 revision on the wire', () => {
  it('answers server/discover with the 2026 revision, the tools capability and public caching hints', async () => {
    const res = await modern(admin.key, 'server/discover');
    expect(res.status).toBe(200);
    expect(res.json.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN],
      capabilities: { tools: { listChanged: false } },
      ttlMs: 300_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'market-service' } },
    });
    expect(res.json.result.instructions).toMatch(/whoami/);
    expect(res.headers.get('mcp-session-id')).toBeNull();
  });

  it("marks tools/list private (it is the caller's own) and fresh for a minute; a 2025 answer carries no such fields", async () => {
    const nobody = await seedUserWithKey(app, { type: 'agent', grants: [] });
    const res = await modern(nobody.key, 'tools/list');
    expect(res.status).toBe(200);
    expect(res.json.result).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'private' });
    expect(res.json.result.tools.map((t: { name: string }) => t.name)).toEqual(['whoami']);
    const legacy = await raw(
      app,
      'POST',
      '/mcp',
      { ...MCP_HEADERS, authorization: `Bearer ${nobody.key}`, 'mcp-protocol-version': '2025-11-25' },
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    );
    expect(legacy.json.result.tools.map((t: { name: string }) => t.name)).toEqual(['whoami']);
    expect(legacy.json.result).not.toHaveProperty('ttlMs');
    expect(legacy.json.result).not.toHaveProperty('cacheScope');
  });

  it('answers a revision it does not serve with -32022 naming every revision it does', async () => {
    for (const version of ['2099-01-01', '2026-07-29']) {
      const res = await modern(admin.key, 'tools/list', {}, version);
      expect(res.status, version).toBe(400);
      expect(res.json.error, version).toMatchObject({ code: -32022, data: { requested: version, supported: MCP_PROTOCOL_VERSIONS } });
    }
    // a 2025-form request naming a revision this server does not serve: 400, the revisions in the message
    const old = await raw(
      app,
      'POST',
      '/mcp',
      { ...MCP_HEADERS, authorization: `Bearer ${admin.key}`, 'mcp-protocol-version': '2024-10-07' },
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    );
    expect(old.status).toBe(400);
    expect(old.json.error.message).toContain(MCP_PROTOCOL_VERSIONS.join(', '));
  });

  it('still needs a key, refuses headers that disagree with the body, and checks tools/call params', async () => {
    const anonymous = await modern(undefined, 'server/discover');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const mismatch = await raw(
      app,
      'POST',
      '/mcp',
      { ...MCP_HEADERS, authorization: `Bearer ${admin.key}`, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta: envelope(MODERN) } }),
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.error.code).toBe(-32020);
    const bad = await modern(admin.key, 'tools/call', { name: 'whoami', arguments: 'text' });
    expect(bad.json.error).toMatchObject({ code: -32602, data: { code: 'validation_failed', errors: [{ path: 'arguments', code: 'invalid_type' }] } });
    const unknown = await modern(admin.key, 'tools/call', { name: 'no_such_tool', arguments: {} });
    expect(unknown.json.result).toMatchObject({ isError: true, structuredContent: { code: 'not_found' } });
  });
});
