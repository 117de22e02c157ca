// One UUID schema (server/application/schemas.ts, uuidSchema) for every id input on every face: any
// 8-4-4-4-12 hex text in either case, lower-cased; anything else is 400 validation_failed, invalid_format
// with format uuid. The tension inputs once used zod's RFC 9562 check, which refused a non-RFC variant the
// identity inputs and every path accepted: here REST, GraphQL and MCP must answer each edge alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';

let app: TestApp;
let admin: SeededUser;
let actorId: string;

beforeAll(async () => {
  app = await startTestApp();
  admin = await seedUserWithKey(app, { grants: ['*'] });
  actorId = (await client(app, admin.key).post('/actors', { name: 'UUID edges org', type: 'organization' })).body.id;
  expect(actorId).toMatch(/^[0-9a-f-]{36}$/);
});
afterAll(async () => {
  await app?.close();
});

type Verdict = 'uuid' | 'malformed';
/** 'uuid': a UUID to this service (names no actor: actor_not_found, not a validation failure); 'malformed': 400. */
const EDGES: [string, string, Verdict][] = [
  ['the nil UUID', '00000000-0000-0000-0000-000000000000', 'uuid'],
  ['the max UUID', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', 'uuid'],
  ['a v4', '3b241101-e2bb-4255-8caf-4136c566a962', 'uuid'],
  ['a v7', '0190a5b2-7c3e-7abc-8def-0123456789ab', 'uuid'],
  ['a v7 in upper case', '0190A5B2-7C3E-7ABC-8DEF-0123456789AB', 'uuid'],
  ['a non-RFC variant and version', '12345678-1234-0234-0234-123456789abc', 'uuid'],
  ['35 characters', '0190a5b2-7c3e-7abc-8def-0123456789a', 'malformed'],
  ['37 characters', '0190a5b2-7c3e-7abc-8def-0123456789abc', 'malformed'],
  ['no dashes', '0190a5b27c3e7abc8def0123456789ab', 'malformed'],
  ['a non-hex letter', '0190a5b2-7c3e-7abc-8def-0123456789ag', 'malformed'],
];

async function mcpCall(name: string, args: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const body = await res.json();
  return body.result;
}

/** What one face answered, said the same way for all three. */
interface Said {
  code: string | null;
  field?: unknown;
}

const fieldOf = (errors: any[] | undefined, path: string) => {
  const item = errors?.find((e) => e.path === path || e.path.endsWith(`.${path}`));
  return item ? { code: item.code, params: item.params } : undefined;
};

const MALFORMED: Said = { code: 'validation_failed', field: { code: 'invalid_format', params: { format: 'uuid' } } };

describe('a body id (sense a tension with actorId)', () => {
  const sense = {
    rest: async (id: string): Promise<Said> => {
      const res = await client(app, admin.key).post('/tensions', { name: 'UUID edge', actorId: id });
      return res.status === 201 ? { code: null } : { code: res.body.code, field: fieldOf(res.body.errors, 'actorId') };
    },
    graphql: async (id: string): Promise<Said> => {
      const res = await client(app, admin.key).gql('mutation($i: SenseTensionInput!) { senseTension(input: $i) { tension { id } } }', {
        i: { name: 'UUID edge', actorId: id },
      });
      const error = res.body.errors?.[0];
      return error ? { code: String(error.extensions.code).toLowerCase(), field: fieldOf(error.extensions.errors, 'actorId') } : { code: null };
    },
    mcp: async (id: string): Promise<Said> => {
      const result = await mcpCall('sense_tension', { name: 'UUID edge', actorId: id });
      return result.isError ? { code: result.structuredContent.code, field: fieldOf(result.structuredContent.errors, 'actorId') } : { code: null };
    },
  };

  it.each(EDGES)('%s: every face answers alike', async (_what, id, verdict) => {
    const expected = verdict === 'uuid' ? { code: 'actor_not_found', field: undefined } : MALFORMED;
    expect({ rest: await sense.rest(id), graphql: await sense.graphql(id), mcp: await sense.mcp(id) }).toEqual({
      rest: expected,
      graphql: expected,
      mcp: expected,
    });
  });

  it('an upper-case id names the same actor and is kept lower-cased, on every face', async () => {
    const upper = actorId.toUpperCase();
    const rest = await client(app, admin.key).post('/tensions', { name: 'Upper REST', actorId: upper });
    const gql = await client(app, admin.key).gql('mutation($i: SenseTensionInput!) { senseTension(input: $i) { tension { actorId } event { data } } }', {
      i: { name: 'Upper GraphQL', actorId: upper },
    });
    const mcp = await mcpCall('sense_tension', { name: 'Upper MCP', actorId: upper });
    expect([rest.body.tension.actorId, rest.body.event.data.actorId]).toEqual([actorId, actorId]);
    expect([gql.body.data.senseTension.tension.actorId, gql.body.data.senseTension.event.data.actorId]).toEqual([actorId, actorId]);
    expect([mcp.structuredContent.tension.actorId, mcp.structuredContent.event.data.actorId]).toEqual([actorId, actorId]);
  });
});

describe('a filter id (list tensions by actorId; the feed by streamId)', () => {
  const list = {
    rest: async (id: string): Promise<Said> => {
      const res = await client(app, admin.key).get(`/tensions?actorId=${encodeURIComponent(id)}`);
      return res.status === 200 ? { code: null } : { code: res.body.code, field: fieldOf(res.body.errors, 'actorId') };
    },
    graphql: async (id: string): Promise<Said> => {
      const res = await client(app, admin.key).gql('query($a: ID) { tensions(actorId: $a) { data { id } } }', { a: id });
      const error = res.body.errors?.[0];
      return error ? { code: String(error.extensions.code).toLowerCase(), field: fieldOf(error.extensions.errors, 'actorId') } : { code: null };
    },
    mcp: async (id: string): Promise<Said> => {
      const result = await mcpCall('list_tensions', { actorId: id });
      return result.isError ? { code: result.structuredContent.code, field: fieldOf(result.structuredContent.errors, 'actorId') } : { code: null };
    },
  };
  const feed = {
    rest: async (id: string): Promise<Said> => {
      const res = await client(app, admin.key).get(`/events?streamId=${encodeURIComponent(id)}`);
      return res.status === 200 ? { code: null } : { code: res.body.code, field: fieldOf(res.body.errors, 'streamId') };
    },
    graphql: async (id: string): Promise<Said> => {
      const res = await client(app, admin.key).gql('query($s: ID) { events(streamId: $s) { nextCursor } }', { s: id });
      const error = res.body.errors?.[0];
      return error ? { code: String(error.extensions.code).toLowerCase(), field: fieldOf(error.extensions.errors, 'streamId') } : { code: null };
    },
    mcp: async (id: string): Promise<Said> => {
      const result = await mcpCall('list_events', { streamId: id });
      return result.isError ? { code: result.structuredContent.code, field: fieldOf(result.structuredContent.errors, 'streamId') } : { code: null };
    },
  };

  it.each(EDGES)('%s: every face answers alike', async (_what, id, verdict) => {
    const tensions = verdict === 'uuid' ? { code: null } : MALFORMED;
    const events = verdict === 'uuid' ? { code: null } : MALFORMED;
    expect({ rest: await list.rest(id), graphql: await list.graphql(id), mcp: await list.mcp(id) }).toEqual({
      rest: tensions,
      graphql: tensions,
      mcp: tensions,
    });
    expect({ rest: await feed.rest(id), graphql: await feed.graphql(id), mcp: await feed.mcp(id) }).toEqual({ rest: events, graphql: events, mcp: events });
  });
});
