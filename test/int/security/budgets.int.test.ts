// SPEC §7 budgets: one request cannot hold the service. A GraphQL operation asking for more than 2,000 list
// items is refused before it runs (TOO_COSTLY); /mcp takes no batch on the revisions that dropped batching,
// at most 10 messages otherwise, and no batch whose list tools ask for more than 2,000 items. While such
// requests arrive, another caller is still served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { MCP_HEADERS, raw } from '../../support/raw-http.js';
import { newActor, newTension } from '../../support/tensions.js';
import { LIST_ITEMS_PER_REQUEST, MCP_BATCH_MAX_MESSAGES } from '../../../server/application/budgets.js';

let app: TestApp;
let reader: string;
let other: string;
beforeAll(async () => {
  app = await startTestApp();
  reader = (await seedUserWithKey(app, { grants: ['events:read', 'tensions:read', 'actors:read', 'users:read'] })).key;
  other = (await seedUserWithKey(app, { grants: ['tensions:read'] })).key;
  // a few events, so every list has something to serve
  const writer = client(app, (await seedUserWithKey(app, { grants: ['tensions:write', 'actors:write'] })).key);
  const actorId = await newActor(writer, 'Budget actor');
  for (let i = 0; i < 3; i++) await newTension(writer, { name: `Budget ${i}`, actorId });
});
afterAll(async () => {
  await app?.close();
});

/** Another caller's cheap request, with a generous bound: it must be served while costly requests arrive. */
async function otherCallerServed(): Promise<number> {
  const res = await fetch(`${app.url}/api/v1/tensions?limit=1`, { headers: { authorization: `Bearer ${other}` }, signal: AbortSignal.timeout(5_000) });
  await res.text();
  return res.status;
}

const gql = (query: string, variables?: Record<string, unknown>) => client(app, reader).gql(query, variables);
const aliases = (n: number, field: string) => Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ');

describe('GraphQL: at most 2,000 list items per operation', () => {
  it('refuses 20 aliases of events(limit: 1000) with 400 TOO_COSTLY before running anything, while another caller is served', async () => {
    const costly = `{ health ${aliases(20, 'events(limit: 1000) { data { id type data } }')} }`;
    const [refused, served] = await Promise.all([Promise.all(Array.from({ length: 5 }, () => gql(costly))), otherCallerServed()]);
    for (const res of refused) {
      expect(res.status).toBe(400);
      // nothing ran: not even `health`
      expect(res.body.data ?? null).toBeNull();
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0].extensions).toEqual({ code: 'TOO_COSTLY', maxItems: LIST_ITEMS_PER_REQUEST });
      expect(res.body.errors[0].message).not.toMatch(/`/);
    }
    expect(served).toBe(200);
  });

  it('counts limits from variables and defaults, sums aliases and fragments: exactly 2,000 is served, one more is refused', async () => {
    const two = `query($n: Int) { a: events(limit: $n) { data { id } } b: events(limit: $n) { data { id } } }`;
    expect((await gql(two, { n: 1000 })).body.errors).toBeUndefined();
    // 1000 + 1000 + tensions' default 20
    const more = `query($n: Int) { a: events(limit: $n) { data { id } } ...More }
      fragment More on Query { b: events(limit: $n) { data { id } } tensions { data { id } } }`;
    const refused = await gql(more, { n: 1000 });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].extensions.code).toBe('TOO_COSTLY');
    // events' default is 100: 20 × 100 is served
    expect((await gql(`{ ${aliases(20, 'events { data { id } }')} }`)).body.errors).toBeUndefined();
    // a variable's default counts too
    const byDefault = await gql(`query($n: Int = 1000) { ${aliases(3, 'events(limit: $n) { data { id } }')} }`);
    expect(byDefault.body.errors[0].extensions.code).toBe('TOO_COSTLY');
  });

  it('leaves out-of-range limits to the list (VALIDATION_FAILED), and skipped fields cost nothing', async () => {
    const res = await gql(`{ events(limit: 5000) { data { id } } }`);
    expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    const skipped = await gql(`query($no: Boolean!) { ${aliases(3, 'events(limit: 1000) @skip(if: $no) { data { id } }')} health }`, { no: true });
    expect(skipped.body).toEqual({ data: { health: 'ok' } });
  });
});

describe('MCP: batches', () => {
  const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  const batch = (messages: unknown[], headers: Record<string, string> = {}) =>
    raw(app, 'POST', '/mcp', { ...MCP_HEADERS, authorization: `Bearer ${reader}`, ...headers }, JSON.stringify(messages));
  const listEvents = (n: number, limit?: number) => Array.from({ length: n }, (_, i) => call(i + 1, 'list_events', limit === undefined ? {} : { limit }));

  it(`refuses a batch of ${MCP_BATCH_MAX_MESSAGES + 1} with 400 and too_costly before running any, while another caller is served; ${MCP_BATCH_MAX_MESSAGES} are served`, async () => {
    const [refused, served] = await Promise.all([batch(listEvents(MCP_BATCH_MAX_MESSAGES + 1, 100)), otherCallerServed()]);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, data: { code: 'too_costly', maxMessages: MCP_BATCH_MAX_MESSAGES } },
    });
    expect(served).toBe(200);
    const ok = await batch(listEvents(MCP_BATCH_MAX_MESSAGES, 100));
    expect(ok.status).toBe(200);
    expect(ok.json).toHaveLength(MCP_BATCH_MAX_MESSAGES);
    for (const answer of ok.json) expect(answer.result.isError ?? false).toBe(false);
  });

  it('refuses any batch on the revisions that dropped batching (2025-06-18 and later), and takes one on 2025-03-26 and 2024-11-05', async () => {
    for (const version of ['2025-06-18', '2025-11-25']) {
      const res = await batch(listEvents(2, 1), { 'mcp-protocol-version': version });
      expect(res.status, version).toBe(400);
      expect(res.json.error, version).toMatchObject({ code: -32600, data: { code: 'validation_failed' } });
      expect(res.json.error.message).toContain(version);
    }
    // an initialize inside the batch names its revision too
    const init = {
      jsonrpc: '2.0',
      id: 9,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    expect((await batch([init, call(1, 'whoami')])).json.error.data.code).toBe('validation_failed');
    for (const version of ['2025-03-26', '2024-11-05']) {
      const res = await batch(listEvents(2, 1), { 'mcp-protocol-version': version });
      expect(res.status, version).toBe(200);
      expect(res.json).toHaveLength(2);
    }
    // no header: 2025-03-26, as the specification says
    expect((await batch(listEvents(2, 1))).status).toBe(200);
    // a single message is not a batch, whatever the revision
    const single = await raw(
      app,
      'POST',
      '/mcp',
      { ...MCP_HEADERS, authorization: `Bearer ${reader}`, 'mcp-protocol-version': '2025-06-18' },
      JSON.stringify(call(1, 'whoami')),
    );
    expect(single.status).toBe(200);
  });

  it('refuses an empty batch, and a batch whose list tools ask for more than 2,000 items (each at its limit, default or maximum)', async () => {
    const empty = await batch([]);
    expect(empty.status).toBe(400);
    expect(empty.json.error.data.code).toBe('validation_failed');
    // 2 × 1000 = 2000: served
    expect((await batch(listEvents(2, 1000))).status).toBe(200);
    // 2 × 1000 + list_tensions' default 20
    const over = await batch([...listEvents(2, 1000), call(3, 'list_tensions')]);
    expect(over.status).toBe(400);
    expect(over.json.error).toMatchObject({ code: -32600, data: { code: 'too_costly', maxItems: LIST_ITEMS_PER_REQUEST } });
    // an out-of-range limit counts as the maximum (the tool refuses it anyway): 3 × 1000
    expect((await batch(listEvents(3, 5000))).json.error.data.code).toBe('too_costly');
    // list_events' default is 100: 10 × 100 is served
    expect((await batch(listEvents(10))).status).toBe(200);
  });
});
