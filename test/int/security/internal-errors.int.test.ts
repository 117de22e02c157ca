// SPEC §7, issue 19's probe: a fault inside the database (a trigger that raises on insert into `tensions`)
// reaches no client as SQL, a stack or the driver's words. REST answers 500 `{code: 'internal', requestId}`,
// GraphQL `INTERNAL` with the request id, MCP a tool error result `internal_error` with the request id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { rpc } from '../../support/raw-http.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '../../../server/mcp/server.js';

const FAULT = 'fault-probe 7f3a: injected failure';
let app: TestApp;
let admin: SeededUser;
let actorId: string;

beforeAll(async () => {
  app = await startTestApp();
  admin = await seedUserWithKey(app, { grants: ['*'] });
  const actor = await client(app, admin.key).post('/actors', { name: 'Probe actor', type: 'organization' });
  actorId = actor.body.id;
  // In this test's own database only: every insert into tensions fails inside PostgreSQL.
  await app.em().execute(`create function fault_probe() returns trigger language plpgsql as $$
    begin raise exception '${FAULT} on %', tg_table_name; end $$`);
  await app.em().execute('create trigger fault_probe before insert on tensions for each row execute function fault_probe()');
});
afterAll(async () => {
  await app?.close();
});

/** Nothing of the failure: no SQL, no table, no stack frame, no driver or trigger message. */
function expectNothingInternal(text: string) {
  expect(text).not.toContain('fault-probe');
  expect(text).not.toMatch(/\binsert\b|\bselect\b|\btensions\b|plpgsql|trigger|\bat [\w.<>]+ \(|\.ts:\d+|\.js:\d+|node_modules|PostgreSQL|pg_|\bsql\b/i);
}

describe('an internal failure, on every face', () => {
  it('REST: 500 {code: internal, requestId} and nothing else of the failure', async () => {
    const res = await fetch(`${app.url}/api/v1/tensions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Probe', actorId }),
    });
    const text = await res.text();
    expect(res.status, text).toBe(500);
    const requestId = res.headers.get('x-request-id');
    expect(JSON.parse(text)).toEqual({ type: 'urn:market-service:problem:internal', title: 'Internal error', status: 500, code: 'internal', requestId });
    expectNothingInternal(text);
  });

  it('GraphQL: INTERNAL with the request id', async () => {
    const res = await client(app, admin.key).gql('mutation($input: SenseTensionInput!) { senseTension(input: $input) { tension { id } } }', {
      input: { name: 'Probe', actorId },
    });
    const text = JSON.stringify(res.body);
    expect(res.body.errors, text).toHaveLength(1);
    expect(res.body.errors[0].extensions).toEqual({ code: 'INTERNAL', requestId: res.headers.get('x-request-id') });
    expect(res.body.errors[0].message).toBe('Internal error');
    expectNothingInternal(text);
  });

  it('MCP: a tool error result coded internal_error with the request id, not a JSON-RPC error echoing the failure', async () => {
    const res = await rpc(app, admin.key, 'tools/call', { name: 'sense_tension', arguments: { name: 'Probe', actorId } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.error, res.text).toBeUndefined();
    expect(res.json.result.isError).toBe(true);
    expect(res.json.result.structuredContent).toMatchObject({ code: 'internal_error', requestId: res.headers.get('x-request-id') });
    expect(JSON.parse(res.json.result.content[0].text)).toEqual(res.json.result.structuredContent);
    expectNothingInternal(res.text);
  });

  it("MCP protocol level: a failure outside any tool is `Internal error` with internal_error and a request id, never the exception's words", async () => {
    // The stdio server resolves the caller on every request; here that lookup fails the way a broken database would.
    const server = createMcpServer(app.deps, async () => {
      throw new Error(`${FAULT}: select * from tensions where id = $1`);
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const mcpClient = new Client({ name: 'fault-probe', version: '1.0.0' });
    await mcpClient.connect(clientSide);
    try {
      const listed = await mcpClient.listTools().then(
        () => null,
        (err: { code: number; message: string; data: unknown }) => err,
      );
      expect(listed).not.toBeNull();
      expect(listed!.code).toBe(-32603);
      expect(listed!.message).toMatch(/Internal error/);
      expect(listed!.data).toMatchObject({ code: 'internal_error', requestId: expect.any(String) });
      expectNothingInternal(JSON.stringify({ message: listed!.message, data: listed!.data }));
      const called = await mcpClient.callTool({ name: 'whoami', arguments: {} });
      expect(called.isError).toBe(true);
      expect(called.structuredContent).toMatchObject({ code: 'internal_error', requestId: expect.any(String) });
      expectNothingInternal(JSON.stringify(called));
    } finally {
      await mcpClient.close();
      await server.close();
    }
  });

  it('wrote nothing: the probe held', async () => {
    const [{ n }] = await app.em().execute<{ n: string }[]>('select count(*)::text as n from domain_events');
    expect(n).toBe('0');
  });
});
