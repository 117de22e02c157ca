// MCP tools over Streamable HTTP with the official SDK client: the lifecycle, permissions, errors, tool metadata.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { mcpHttpClient } from '../../support/mcp.js';
import { callError, callOk, runTensionLifecycle } from '../../support/mcp-lifecycle.js';
import { TOOLS } from '../../../server/mcp/tools.js';
import { OPERATION_PERMISSIONS } from '../../../server/application/permission-table.js';
import { hasPermission } from '../../../server/domain/permissions.js';

const SPEC_TOOLS = [
  'whoami',
  'list_tensions',
  'get_tension',
  'get_tension_history',
  'sense_tension',
  'rename_tension',
  'rescore_tension',
  'revise_tension_context',
  'set_tension_lead',
  'reassign_tension',
  'resolve_tension',
  'drop_tension',
  'reopen_tension',
  'revive_tension',
  'discard_tension',
  'list_actors',
  'get_actor',
  'create_actor',
  'list_users',
  'list_events',
  // SPEC §15
  'get_tension_changes',
];

/** What the permission table says a caller holding `grants` may call. */
function permittedTools(grants: string[]): string[] {
  return TOOLS.filter((t) => t.operation === null || hasPermission(grants, OPERATION_PERMISSIONS[t.operation]!))
    .map((t) => t.name)
    .sort();
}

let app: TestApp;
let admin: SeededUser;
let rest: ReturnType<typeof client>;
let actorA: string;
let actorB: string;
let lead: SeededUser;

async function withClient<T>(key: string, work: (c: Client) => Promise<T>): Promise<T> {
  const c = await mcpHttpClient(app, key);
  try {
    return await work(c);
  } finally {
    await c.close();
  }
}

async function createActor(name: string): Promise<string> {
  const res = await rest.post('/actors', { name, type: 'organization' });
  expect(res.status).toBe(201);
  return res.body.id;
}

beforeAll(async () => {
  app = await startTestApp();
  admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'], name: 'Root agent' });
  rest = client(app, admin.key);
  actorA = await createActor('Org A');
  actorB = await createActor('Org B');
  lead = await seedUserWithKey(app, { type: 'human', grants: [], name: 'Alice' });
});
afterAll(async () => {
  await app?.close();
});

describe('a full tension lifecycle through MCP tools', () => {
  it('answers every command in the REST shape, and REST sees each result and the history with via mcp', async () => {
    const agent = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:read'], name: 'Tension bot' });
    const outcome = await withClient(agent.key, (c) =>
      runTensionLifecycle(c, { actorA, actorB, leadUserId: lead.userId }, async ({ result }) => {
        const seen = await rest.get(`/tensions/${result.tension!.id}`);
        expect(seen.status).toBe(200);
        expect(result.tension).toEqual(seen.body);
      }),
    );
    expect(outcome.steps.map((s) => s.tool)).toEqual([
      'sense_tension',
      'rename_tension',
      'rescore_tension',
      'revise_tension_context',
      'set_tension_lead',
      'reassign_tension',
      'resolve_tension',
      'reopen_tension',
      'drop_tension',
      'revive_tension',
    ]);
    expect(outcome.steps.at(-1)!.result.tension).toMatchObject({
      name: 'Slow settlement of trades',
      score: 8,
      potentialFuture: 'T+0',
      lead: { id: lead.userId, name: 'Alice' },
      actorId: actorB,
    });

    // The tension is gone for REST too; its history stays, every entry made through MCP by the agent's key.
    expect((await rest.get(`/tensions/${outcome.tensionId}`)).status).toBe(404);
    const history = await rest.get(`/tensions/${outcome.tensionId}/history?limit=100`);
    expect(history.status).toBe(200);
    const entries = history.body.data as Record<string, any>[];
    expect(entries).toHaveLength(11);
    for (const e of entries) expect(e.by).toEqual({ kind: 'agent', userId: agent.userId, userName: 'Tension bot', apiKeyName: 'Tension bot key', via: 'mcp' });
    // The events MCP returned are the entries REST shows, field for field.
    expect(entries).toEqual([outcome.discard.event, ...outcome.history]);
    expect(outcome.history).toEqual(outcome.steps.map((s) => s.result.event).reverse());
    expect(entries.map((e) => e.summary)).toEqual([
      'Discarded',
      'Revived',
      'Dropped as stale',
      'Reopened',
      'Resolved',
      'Reassigned from Org A to Org B',
      'Lead assigned to Alice',
      'Revised potential future',
      'Score raised from 5 to 8',
      'Renamed from "Slow settlement" to "Slow settlement of trades"',
      'Tension sensed',
    ]);
  });

  it('lists and gets through the read tools what REST answers', async () => {
    const sensed = await rest.post('/tensions', { name: 'Thin order book', actorId: actorA, score: 9 });
    expect(sensed.status).toBe(201);
    const reader = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read', 'actors:read'] });
    await withClient(reader.key, async (c) => {
      const viaRest = await rest.get(`/tensions?actorId=${actorA}&sort=-score&limit=5`);
      expect(await callOk(c, 'list_tensions', { actorId: actorA, sort: '-score', limit: 5 })).toEqual(viaRest.body);
      expect(await callOk(c, 'get_tension', { id: sensed.body.tension.id })).toEqual(sensed.body.tension);
      expect(await callOk(c, 'list_actors', { q: 'Org', limit: 10 })).toEqual((await rest.get('/actors?q=Org&limit=10')).body);
      expect(await callOk(c, 'get_actor', { id: actorB })).toEqual((await rest.get(`/actors/${actorB}`)).body);
      // Query-string integers are strings over REST; MCP takes JSON numbers, and the page is the same.
      const page = await callOk(c, 'list_tensions', { limit: 1 });
      expect(page).toMatchObject({ data: [expect.objectContaining({ score: 9 })] });
    });
  });
});

describe('tools/list and tools/call agree with the permission table', () => {
  const profiles: [string, string[]][] = [
    ['nothing', []],
    ['read-only', ['tensions:read', 'actors:read']],
    ['read-write', ['tensions:read', 'tensions:write', 'actors:read']],
    ['tensions:* without actors', ['tensions:*']],
    ['everything', ['*']],
  ];

  it.each(profiles)('a key holding %s lists exactly the tools its permissions allow, and may call exactly those', async (_label, grants) => {
    const user = await seedUserWithKey(app, { type: 'agent', grants });
    await withClient(user.key, async (c) => {
      const listed = (await c.listTools()).tools.map((t) => t.name).sort();
      expect(listed).toEqual(permittedTools(grants));
      // Every tool of the registry: listed ⇔ not refused as forbidden. Empty arguments never run a write.
      for (const tool of TOOLS) {
        const result = await c.callTool({ name: tool.name, arguments: {} });
        const code = (result.structuredContent as { code?: string } | undefined)?.code;
        if (listed.includes(tool.name)) {
          expect(code, tool.name).not.toBe('forbidden');
        } else {
          expect(result.isError, tool.name).toBe(true);
          expect(result.structuredContent, tool.name).toEqual({
            code: 'forbidden',
            detail: expect.any(String),
            missingPermission: OPERATION_PERMISSIONS[tool.operation!],
          });
        }
      }
    });
  });

  it('read-only and read-write keys differ by the write tools; discard needs tensions:delete', async () => {
    const reader = permittedTools(['tensions:read', 'actors:read']);
    const writer = permittedTools(['tensions:read', 'tensions:write', 'actors:read']);
    const writes = TOOLS.filter((t) => t.operation && OPERATION_PERMISSIONS[t.operation] === 'tensions:write').map((t) => t.name);
    expect(writes.length).toBeGreaterThan(0);
    expect(writer.filter((n) => !reader.includes(n)).sort()).toEqual(writes.sort());
    expect(writer).not.toContain('discard_tension');
    expect(reader).toEqual(expect.arrayContaining(['whoami', 'get_tension', 'list_actors']));
  });

  it('a forbidden call writes nothing', async () => {
    const reader = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read', 'actors:read'] });
    const before = await rest.get('/tensions?limit=100');
    await withClient(reader.key, async (c) => {
      expect(await callError(c, 'sense_tension', { name: 'Not allowed', actorId: actorA })).toMatchObject({
        code: 'forbidden',
        missingPermission: 'tensions:write',
      });
    });
    expect((await rest.get('/tensions?limit=100')).body).toEqual(before.body);
  });
});

describe('errors keep their codes', () => {
  let writer: SeededUser;
  beforeAll(async () => {
    writer = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read', 'tensions:write', 'actors:read'] });
  });

  it('schema-invalid arguments are validation_failed with the field paths', async () => {
    await withClient(writer.key, async (c) => {
      const sensed = await callOk(c, 'sense_tension', { name: 'Validation target', actorId: actorA });
      const id = (sensed.tension as { id: string }).id;
      expect(await callError(c, 'rescore_tension', { id, score: '8' })).toMatchObject({
        code: 'validation_failed',
        errors: [expect.objectContaining({ path: 'score' })],
      });
      expect(await callError(c, 'rescore_tension', { id, score: 11 })).toMatchObject({ code: 'validation_failed' });
      expect(await callError(c, 'rename_tension', { id, name: '   ' })).toMatchObject({ code: 'validation_failed' });
      // An id is read as REST reads a path: not a UUID is not found, on every tool; a missing id fails the schema.
      for (const [tool, args, code] of [
        ['get_tension', {}, 'not_found'],
        ['rename_tension', { name: 'x' }, 'not_found'],
        ['get_tension_history', {}, 'not_found'],
        ['get_actor', {}, 'actor_not_found'],
      ] as const) {
        expect(await callError(c, tool, { id: 'not-a-uuid', ...args }), tool).toMatchObject({ code });
        expect(await callError(c, tool, { ...args }), tool).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ path: 'id' })] });
      }
      expect(await callError(c, 'resolve_tension', { id, surprise: true })).toMatchObject({ code: 'validation_failed' });
      expect(await callError(c, 'revise_tension_context', { id })).toMatchObject({ code: 'validation_failed' });
      expect(await callError(c, 'list_tensions', { sort: 'colour' })).toMatchObject({ code: 'validation_failed' });
      // Nothing was written by any of them.
      expect(await callOk(c, 'get_tension', { id })).toMatchObject({ version: 1 });
    });
  });

  it('version_conflict carries currentVersion, invalid_transition the state and command', async () => {
    await withClient(writer.key, async (c) => {
      const id = ((await callOk(c, 'sense_tension', { name: 'Conflict target', actorId: actorA })).tension as { id: string }).id;
      expect(await callError(c, 'rename_tension', { id, name: 'Late', expectedVersion: 7 })).toMatchObject({
        code: 'version_conflict',
        currentVersion: 1,
        expectedVersion: 7,
      });
      await callOk(c, 'resolve_tension', { id });
      expect(await callError(c, 'revive_tension', { id })).toMatchObject({ code: 'invalid_transition', state: 'resolved' });
      expect(await callError(c, 'drop_tension', { id })).toMatchObject({ code: 'invalid_transition', state: 'resolved' });
      expect(await callOk(c, 'get_tension', { id })).toMatchObject({ state: 'resolved', version: 2, name: 'Conflict target' });
    });
  });

  it('not_found, actor_not_found, user_not_found and not_applicable', async () => {
    const gone = await seedUserWithKey(app, { type: 'human', grants: [], name: 'Gone' });
    // Deactivated by SQL: the API's deactivation revokes the user's keys too, and what matters here is
    // only how the tools answer for a user in that state.
    await app.em().execute(`update users set status = 'deactivated' where id = ?`, [gone.userId]);
    const unknown = '00000000-0000-4000-8000-000000000000';
    await withClient(writer.key, async (c) => {
      expect(await callError(c, 'get_tension', { id: unknown })).toMatchObject({ code: 'not_found' });
      expect(await callError(c, 'rename_tension', { id: unknown, name: 'x' })).toMatchObject({ code: 'not_found' });
      expect(await callError(c, 'get_tension_history', { id: unknown })).toMatchObject({ code: 'not_found' });
      // An actor that does not exist is actor_not_found, as over REST.
      expect(await callError(c, 'get_actor', { id: unknown })).toMatchObject({ code: 'actor_not_found' });
      expect((await rest.get(`/actors/${unknown}`)).body).toMatchObject({ status: 404, code: 'actor_not_found' });
      expect(await callError(c, 'sense_tension', { name: 'Orphan', actorId: unknown })).toMatchObject({ code: 'actor_not_found' });
      const id = ((await callOk(c, 'sense_tension', { name: 'Lead target', actorId: actorA })).tension as { id: string }).id;
      expect(await callError(c, 'reassign_tension', { id, actorId: unknown })).toMatchObject({ code: 'actor_not_found' });
      expect(await callError(c, 'set_tension_lead', { id, leadUserId: unknown })).toMatchObject({ code: 'user_not_found' });
      expect(await callError(c, 'set_tension_lead', { id, leadUserId: gone.userId })).toMatchObject({ code: 'not_applicable' });
      expect(await callError(c, 'sense_tension', { name: 'Led by nobody', actorId: actorA, leadUserId: gone.userId })).toMatchObject({
        code: 'not_applicable',
      });
      expect(await callOk(c, 'get_tension', { id })).toMatchObject({ version: 1, actorId: actorA, leadUserId: null });
    });
  });
});

describe('tool metadata', () => {
  let tools: Tool[];
  beforeAll(async () => {
    tools = await withClient(admin.key, async (c) => (await c.listTools()).tools);
  });

  it('the registry is exactly the tools SPEC §8 and §15 name', () => {
    expect(tools.map((t) => t.name).sort()).toEqual([...SPEC_TOOLS].sort());
  });

  it('every tool has a title, a description, an object input schema and an output schema', () => {
    for (const t of tools) {
      expect(t.title, t.name).toBeTruthy();
      expect(t.description!.length, t.name).toBeGreaterThan(30);
      expect(t.inputSchema.type, t.name).toBe('object');
      // structuredContent is the result, or with isError the coded error: the schema names both.
      const [result, error] = (t.outputSchema as { type: string; anyOf: Record<string, any>[] }).anyOf;
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(Object.keys(result.properties ?? {}).length, t.name).toBeGreaterThan(0);
      expect(error.required, t.name).toEqual(['code', 'detail']);
      expect(error.properties.code.enum, t.name).toEqual(expect.arrayContaining(['forbidden', 'validation_failed', 'version_conflict']));
    }
    // Inputs use the REST body's field names, plus id, plus the optional idempotencyKey of writes (SPEC §12).
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName.get('sense_tension')!.inputSchema.properties!).sort()).toEqual(
      ['actorId', 'currentContext', 'idempotencyKey', 'leadUserId', 'name', 'potentialFuture', 'score'].sort(),
    );
    expect(byName.get('rescore_tension')!.inputSchema.required).toEqual(expect.arrayContaining(['id', 'score']));
    expect(Object.keys(byName.get('resolve_tension')!.inputSchema.properties!).sort()).toEqual(['expectedVersion', 'id', 'idempotencyKey']);
    expect(byName.get('resolve_tension')!.inputSchema.required).not.toContain('idempotencyKey');
    expect(byName.get('get_tension')!.inputSchema.properties).not.toHaveProperty('idempotencyKey');
  });

  it('annotations: readOnlyHint on reads, destructiveHint only on discard, idempotentHint where a retry is safe', () => {
    for (const t of tools) {
      const def = TOOLS.find((d) => d.name === t.name)!;
      const permission = def.operation ? OPERATION_PERMISSIONS[def.operation] : null;
      const isRead = permission === null || permission.endsWith(':read');
      expect(t.annotations?.readOnlyHint, t.name).toBe(isRead);
      expect(t.annotations?.destructiveHint ?? false, t.name).toBe(t.name === 'discard_tension');
      // Reads and every edit or transition are no-ops when repeated (the lifecycle test retries each);
      // sense and create_actor record a second one, and discard answers not_found the second time.
      expect(t.annotations?.idempotentHint, t.name).toBe(!['sense_tension', 'create_actor', 'discard_tension'].includes(t.name));
      expect(t.annotations?.openWorldHint, t.name).toBe(false);
    }
  });
});
