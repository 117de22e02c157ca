// The faces generated from the tension command registry (issues 11, 15): what the OpenAPI document,
// the GraphQL schema and the MCP tool list promise for every command, and that a malformed tension id
// answers the same code on every face (SPEC §3: not a UUID in the path is 404 not_found).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { mcpHttpClient } from '../../support/mcp.js';
import { callError } from '../../support/mcp-lifecycle.js';
import { newActor, newTension } from '../../support/tensions.js';
import { TENSION_COMMANDS } from '../../../server/application/tensions/registry.js';
import { withoutTypeArrays } from '../../../server/mcp/server.js';

let app: TestApp;
let admin: SeededUser;
let doc: any;
let tools: { name: string; inputSchema: any }[];
let mcp: McpClient;

beforeAll(async () => {
  app = await startTestApp();
  admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'], name: 'Registry agent' });
  doc = (await client(app).get('/openapi.json')).body;
  mcp = await mcpHttpClient(app, admin.key);
  tools = (await mcp.listTools()).tools;
});
afterAll(async () => {
  await mcp?.close();
  await app?.close();
});

const openApiPath = (p: string) => p.replace(/:(\w+)/g, '{$1}');

/** Every path to a JSON-Schema node, with the node. */
function nodes(json: unknown, path = '$'): [string, any][] {
  if (!json || typeof json !== 'object') return [];
  const here: [string, any][] = Array.isArray(json) ? [] : [[path, json]];
  return here.concat(Object.entries(json).flatMap(([k, v]) => nodes(v, `${path}.${k}`)));
}

describe('OpenAPI operations of the tension commands', () => {
  it('one operation per registry entry, its operationId the GraphQL mutation name, every parameter and body property described', () => {
    for (const entry of TENSION_COMMANDS) {
      const op = doc.paths[openApiPath(entry.rest.path)]?.[entry.rest.method];
      expect(op, entry.operation).toBeDefined();
      expect(op.operationId).toBe(entry.graphql.field);
      for (const p of op.parameters) expect(p.description, `${entry.operation} parameter ${p.name}`).toBeTruthy();
      const props = op.requestBody?.content['application/json'].schema.properties ?? {};
      for (const [name, schema] of Object.entries<any>(props)) expect(schema.description, `${entry.operation} body ${name}`).toBeTruthy();
    }
  });

  it('DELETE /tensions/{id} declares ?expectedVersion; the lifecycle bodies are optional, the others required', () => {
    const del = doc.paths['/tensions/{id}'].delete;
    expect(del.parameters.map((p: any) => `${p.in}:${p.name}:${p.required}`)).toEqual(['path:id:true', 'query:expectedVersion:false']);
    for (const verb of ['resolve', 'drop', 'reopen', 'revive']) expect(doc.paths[`/tensions/{id}/${verb}`].post.requestBody.required).toBe(false);
    for (const verb of ['rename', 'rescore', 'revise', 'lead', 'reassign']) expect(doc.paths[`/tensions/{id}/${verb}`].post.requestBody.required).toBe(true);
    expect(doc.paths['/tensions'].post.requestBody.required).toBe(true);
  });

  it('sense answers a tension that is never null, and takes no expectedVersion', () => {
    const sense = doc.paths['/tensions'].post;
    const answer = doc.components.schemas.SenseResult;
    expect(sense.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/SenseResult' });
    expect(answer.properties.tension.$ref).toBe('#/components/schemas/Tension');
    expect(answer.properties.tension.anyOf).toBeUndefined();
    expect(answer.required).toContain('tension');
    expect(Object.keys(sense.requestBody.content['application/json'].schema.properties)).not.toContain('expectedVersion');
  });
});

describe('MCP command tools', () => {
  it('every input property has a description; no JSON-Schema type arrays anywhere', () => {
    for (const entry of TENSION_COMMANDS) {
      const tool = tools.find((t) => t.name === entry.mcp.name)!;
      expect(tool, entry.mcp.name).toBeDefined();
      for (const [name, schema] of Object.entries<any>(tool.inputSchema.properties)) expect(schema.description, `${tool.name}.${name}`).toBeTruthy();
      for (const [where, node] of nodes(tool.inputSchema)) expect(Array.isArray(node.type), `${tool.name} ${where}`).toBe(false);
    }
  });

  it('a nullable simple type (which zod writes as a type array) is listed as anyOf', () => {
    expect(withoutTypeArrays({ properties: { a: { type: ['string', 'null'], maxLength: 3, description: 'A' } } })).toEqual({
      properties: { a: { description: 'A', anyOf: [{ type: 'string', maxLength: 3 }, { type: 'null' }] } },
    });
  });

  it('the bounds of the contract are in the schema: name 1-200, score 1-10, texts at most 10000', () => {
    const sense = tools.find((t) => t.name === 'sense_tension')!.inputSchema.properties;
    expect([sense.name.minLength, sense.name.maxLength]).toEqual([1, 200]);
    expect([sense.score.minimum, sense.score.maximum]).toEqual([1, 10]);
    expect(sense.currentContext.anyOf.find((v: any) => v.type === 'string').maxLength).toBe(10_000);
  });
});

describe('a tension id that is not a UUID', () => {
  it('is 404 not_found on REST, GraphQL and MCP alike, for every command on a tension', async () => {
    const rest = client(app, admin.key);
    for (const entry of TENSION_COMMANDS.filter((e) => !e.creates)) {
      const path = `/api/v1${entry.rest.path.replace(':id', 'not-a-uuid')}`;
      const res = await fetch(`${app.url}${path}`, {
        method: entry.rest.method.toUpperCase(),
        headers: { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json' },
        ...(entry.rest.input === 'body' ? { body: JSON.stringify(entry.example) } : {}),
      });
      expect([entry.operation, res.status, (await res.json()).code]).toEqual([entry.operation, 404, 'not_found']);
      const inputType = `${entry.graphql.inputType}${entry.input.safeParse({}).success ? '' : '!'}`;
      const gql = await rest.gql(`mutation($id: ID!, $input: ${inputType}) { ${entry.graphql.field}(id: $id, input: $input) { event { version } } }`, {
        id: 'not-a-uuid',
        input: entry.example,
      });
      expect([entry.operation, gql.body.errors?.[0]?.extensions?.code]).toEqual([entry.operation, 'NOT_FOUND']);
      const error = await callError(mcp, entry.mcp.name, { id: 'not-a-uuid', ...entry.example });
      expect([entry.operation, error.code]).toEqual([entry.operation, 'not_found']);
    }
  });
});

describe('the permission each command states', () => {
  it('is the one SPEC §2 names: tensions:delete for discard, tensions:write for every other command (REST, on a real tension)', async () => {
    const actorId = await newActor(client(app, admin.key), 'Permission org');
    const tension = await newTension(client(app, admin.key), { name: 'Guarded', actorId });
    const writer = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read', 'tensions:write', 'actors:read', 'users:read'] });
    const deleter = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read', 'tensions:delete', 'actors:read', 'users:read'] });
    const send = async (key: string, entry: (typeof TENSION_COMMANDS)[number]) => {
      const res = await fetch(`${app.url}/api/v1${entry.rest.path.replace(':id', tension.id)}`, {
        method: entry.rest.method.toUpperCase(),
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(entry.rest.input === 'body' ? { body: JSON.stringify({ ...entry.example, ...('actorId' in entry.example ? { actorId } : {}) }) } : {}),
      });
      const text = await res.text();
      const body = text ? (JSON.parse(text) as { code?: string; missingPermission?: string }) : {};
      return { status: res.status, code: body.code, missing: body.missingPermission };
    };
    // discard last: it removes the tension
    for (const entry of [...TENSION_COMMANDS].sort((a, b) => Number(a.operation === 'tensions.discard') - Number(b.operation === 'tensions.discard'))) {
      const needed = entry.operation === 'tensions.discard' ? 'tensions:delete' : 'tensions:write';
      const [allowed, refused] = needed === 'tensions:write' ? [writer, deleter] : [deleter, writer];
      expect([entry.operation, await send(refused.key, entry)]).toEqual([entry.operation, { status: 403, code: 'forbidden', missing: needed }]);
      // let in: done, or refused by the lifecycle (drop after resolve), never for want of a permission
      const done = await send(allowed.key, entry);
      expect([entry.operation, done.status === entry.rest.status || done.code === 'invalid_transition']).toEqual([entry.operation, true]);
    }
  });
});

describe('Tension.allowedCommands', () => {
  it('follows the decider as the tension moves: resolve it, and reopen takes the place of resolve and drop', async () => {
    const rest = client(app, admin.key);
    const actorId = await newActor(rest, 'Allowed org');
    const tension = await newTension(rest, { name: 'Moves', actorId });
    const read = async () => (await rest.gql('query($id: ID!) { tension(id: $id) { allowedCommands } }', { id: tension.id })).body.data.tension.allowedCommands;
    expect(await read()).toEqual(['rename', 'rescore', 'revise', 'lead', 'reassign', 'resolve', 'drop', 'discard']);
    expect((await rest.post(`/tensions/${tension.id}/resolve`)).status).toBe(200);
    expect(await read()).toEqual(['rename', 'rescore', 'revise', 'lead', 'reassign', 'reopen', 'discard']);
  });
});

describe('discardTension', () => {
  it('takes an input like every other command, and its expectedVersion guards the write', async () => {
    const rest = client(app, admin.key);
    const actorId = await newActor(rest, 'Registry org');
    const tension = await newTension(rest, { name: 'To discard', actorId });
    const stale = await rest.gql('mutation($id: ID!) { discardTension(id: $id, input: { expectedVersion: 7 }) { event { version } } }', { id: tension.id });
    expect(stale.body.errors[0].extensions).toMatchObject({ code: 'VERSION_CONFLICT', currentVersion: 1, expectedVersion: 7 });
    const done = await rest.gql('mutation($id: ID!) { discardTension(id: $id, input: { expectedVersion: 1 }) { tension { id } event { type } } }', {
      id: tension.id,
    });
    expect(done.body.data.discardTension).toEqual({ tension: null, event: { type: 'TensionDiscarded' } });
  });
});
