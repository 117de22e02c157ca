// SPEC §8 for the tools models see: input and output schemas every provider accepts (no `type: [...]`
// arrays), every input property described with the contract's bounds; whoami = GET /auth/me; the tools
// an MCP-only agent needs (create_actor, list_users); protocol-correct JSON-RPC errors over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { mcpHttpClient } from '../../support/mcp.js';
import { MCP_HEADERS, raw, rpc } from '../../support/raw-http.js';

let app: TestApp;
let admin: SeededUser;
let tools: Tool[];

async function withClient<T>(key: string, work: (c: Client) => Promise<T>): Promise<T> {
  const c = await mcpHttpClient(app, key);
  try {
    return await work(c);
  } finally {
    await c.close();
  }
}

beforeAll(async () => {
  app = await startTestApp();
  admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'], name: 'Schema agent' });
  tools = (await withClient(admin.key, (c) => c.listTools())).tools;
});
afterAll(async () => {
  await app?.close();
});

type Json = Record<string, any>;

/** Every place in a JSON Schema where `type` is an array, as paths. */
function typeArrays(schema: unknown, path = '$'): string[] {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => typeArrays(s, `${path}[${i}]`));
  if (!schema || typeof schema !== 'object') return [];
  const here = Array.isArray((schema as Json).type) ? [path] : [];
  return [...here, ...Object.entries(schema).flatMap(([k, v]) => typeArrays(v, `${path}.${k}`))];
}

/** The non-null variants of a property (anyOf of a nullable field). */
const variants = (p: Json): Json[] => (p.anyOf ? (p.anyOf as Json[]).filter((v) => v.type !== 'null') : [p]);

/** What is missing from one input property: a description, and the bounds its type calls for. */
function propertyProblems(name: string, p: Json): string[] {
  const problems: string[] = [];
  if (typeof p.description !== 'string' || p.description.length < 3) problems.push(`${name}: no description`);
  for (const v of variants(p)) {
    if (v.type === 'string' && v.maxLength === undefined && !v.enum && !v.format && v.const === undefined)
      problems.push(`${name}: string without maxLength, enum or format`);
    if ((v.type === 'integer' || v.type === 'number') && (v.minimum === undefined || v.maximum === undefined))
      problems.push(`${name}: number without minimum and maximum`);
    if (v.type === 'array') {
      if (v.maxItems === undefined) problems.push(`${name}: array without maxItems`);
      problems.push(...propertyProblems(`${name}[]`, { description: 'item', ...v.items }));
    }
    if (v.type === 'object' && v.properties) {
      for (const [k, q] of Object.entries(v.properties as Json)) problems.push(...propertyProblems(`${name}.${k}`, q as Json));
    }
  }
  return problems;
}

describe('tools/list, as a model provider reads it', () => {
  it('has no type arrays in any input or output schema', () => {
    const found = tools.flatMap((t) => [...typeArrays(t.inputSchema, `${t.name}.input`), ...typeArrays(t.outputSchema, `${t.name}.output`)]);
    expect(found).toEqual([]);
  });

  it('describes every input property with its bounds', () => {
    const problems = tools.flatMap((t) => Object.entries(t.inputSchema.properties ?? {}).flatMap(([k, p]) => propertyProblems(`${t.name}.${k}`, p as Json)));
    expect(problems).toEqual([]);
  });

  it('the walkers find what they look for', () => {
    expect(typeArrays({ properties: { a: { type: ['string', 'null'] } } })).toEqual(['$.properties.a']);
    expect(propertyProblems('x', { type: 'string' })).toEqual(['x: no description', 'x: string without maxLength, enum or format']);
    expect(propertyProblems('n', { type: 'integer', minimum: 1, description: 'a number' })).toEqual(['n: number without minimum and maximum']);
  });
});

describe('the tools an MCP-only agent needs', () => {
  it('whoami answers exactly what GET /auth/me answers', async () => {
    const agent = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read', 'actors:read'], name: 'Mirror agent' });
    const rest = client(app, agent.key);
    expect((await rest.get('/auth/me')).status).toBe(200);
    const whoami = (await withClient(agent.key, (c) => c.callTool({ name: 'whoami', arguments: {} }))) as CallToolResult;
    const me = await rest.get('/auth/me');
    expect(whoami.isError).toBeFalsy();
    expect(whoami.structuredContent).toEqual(me.body);
    expect(me.body).toMatchObject({ user: { type: 'agent' }, authenticatedBy: 'api_key', roles: [expect.objectContaining({ id: agent.roleId })] });
  });

  it('create_actor creates what REST then reads, and needs actors:write', async () => {
    const writer = await seedUserWithKey(app, { type: 'agent', grants: ['actors:write', 'actors:read'] });
    const created = (await withClient(writer.key, (c) =>
      c.callTool({ name: 'create_actor', arguments: { name: '  Made by MCP ', type: 'virtual' } }),
    )) as CallToolResult;
    expect(created.isError).toBeFalsy();
    const actor = created.structuredContent as { id: string };
    expect((await client(app, writer.key).get(`/actors/${actor.id}`)).body).toEqual(created.structuredContent);
    expect(actor).toMatchObject({ name: 'Made by MCP', type: 'virtual' });

    const bad = (await withClient(writer.key, (c) => c.callTool({ name: 'create_actor', arguments: { name: 'x', type: 'company' } }))) as CallToolResult;
    expect(bad.structuredContent).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ path: 'type' })] });

    const reader = await seedUserWithKey(app, { type: 'agent', grants: ['actors:read'] });
    const names = (await withClient(reader.key, (c) => c.listTools())).tools.map((t) => t.name);
    expect(names).not.toContain('create_actor');
    const refused = (await withClient(reader.key, (c) => c.callTool({ name: 'create_actor', arguments: { name: 'Nope', type: 'virtual' } }))) as CallToolResult;
    expect(refused.structuredContent).toMatchObject({ code: 'forbidden', missingPermission: 'actors:write' });
  });

  it('list_users finds a lead: id, name, type and status only, with filters and pages', async () => {
    const lead = await seedUserWithKey(app, { type: 'human', grants: [], name: 'Findable Lead' });
    const finder = await seedUserWithKey(app, { type: 'agent', grants: ['users:read'] });
    const call = (args: Record<string, unknown>) =>
      withClient(finder.key, (c) => c.callTool({ name: 'list_users', arguments: args })) as Promise<CallToolResult>;
    const found = (await call({ q: 'findable', type: 'human', status: 'active' })).structuredContent as {
      data: Record<string, unknown>[];
      nextCursor: string | null;
    };
    expect(found.data).toEqual([{ id: lead.userId, name: 'Findable Lead', type: 'human', status: 'active' }]);
    expect(found.nextCursor).toBeNull();
    expect(((await call({ q: 'findable', type: 'agent' })).structuredContent as { data: unknown[] }).data).toEqual([]);

    const first = (await call({ limit: 1 })).structuredContent as { data: { id: string }[]; nextCursor: string };
    expect(first.data).toHaveLength(1);
    const second = (await call({ limit: 1, cursor: first.nextCursor })).structuredContent as { data: { id: string }[] };
    expect(second.data[0].id).not.toBe(first.data[0].id);
    expect((await call({ limit: 0 })).structuredContent).toMatchObject({ code: 'validation_failed' });
    expect((await call({ cursor: 'not-a-cursor' })).structuredContent).toMatchObject({ code: 'validation_failed' });

    const blind = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read'] });
    expect((await withClient(blind.key, (c) => c.listTools())).tools.map((t) => t.name)).not.toContain('list_users');
  });
});

describe('JSON-RPC over HTTP', () => {
  it('answers tools/call params that break the protocol schema with -32602 in a sentence, not -32603 with a zod dump', async () => {
    for (const args of [5, 'text', [1], null]) {
      const res = await rpc(app, admin.key, 'tools/call', { name: 'whoami', arguments: args });
      expect(res.status, JSON.stringify(args)).toBe(200);
      expect(res.json).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32602, data: { code: 'validation_failed', errors: [{ path: 'arguments', message: 'must be an object' }] } },
      });
      expect(res.json.error.message).not.toMatch(/[[{]/);
    }
    const nameless = await rpc(app, admin.key, 'tools/call', { arguments: {} });
    expect(nameless.json.error).toMatchObject({ code: -32602, data: { errors: [{ path: 'name' }] } });
    // arguments that are an object but fail the tool's schema stay a coded tool result (SPEC §8)
    const surprise = await rpc(app, admin.key, 'tools/call', { name: 'whoami', arguments: { surprise: 1 } });
    expect(surprise.json.result).toMatchObject({ isError: true, structuredContent: { code: 'validation_failed' } });
  });

  it('answers a 2 MB argument with 413 payload_too_large the SDK client reports, writes nothing and keeps serving', async () => {
    await withClient(admin.key, async (c) => {
      const actorId = (await client(app, admin.key).post('/actors', { name: 'Big org', type: 'organization' })).body.id;
      const failure = await c.callTool({ name: 'sense_tension', arguments: { name: 'Huge', actorId, currentContext: 'x'.repeat(2 * 1024 * 1024) } }).then(
        () => null,
        (err: unknown) => err as { code?: number; message: string },
      );
      expect(failure).not.toBeNull();
      expect(failure!.code).toBe(413);
      expect(failure!.message).toContain('payload_too_large');
      const [{ n }] = await app.em().execute<{ n: number }[]>('select count(*)::int as n from tensions where actor_id = ?', [actorId]);
      expect(n).toBe(0);
      expect((await c.callTool({ name: 'whoami', arguments: {} })).isError).toBeFalsy();
    });
    const res = await raw(
      app,
      'POST',
      '/mcp',
      { ...MCP_HEADERS, authorization: `Bearer ${admin.key}` },
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'whoami', arguments: { pad: 'x'.repeat(2 * 1024 * 1024) } },
      }),
    );
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { data: { code: 'payload_too_large' } } });
  });
});
