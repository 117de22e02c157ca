// One paging codec (server/application/paging.ts): every list takes `limit` and `cursor` by the same rule.
// limit: an integer 1-max as a number or as digits (leading zeros allowed); absent, blank or null is the
// default; anything else (0, max + 1, 1e1, " 5", 5.5, a word) is 400 validation_failed on `limit`. A blank
// cursor is the first page; a cursor another list issued is 400. Before, the identity lists coerced
// (1e1 and " 5" were 10 and 5) while the tension lists refused them and refused a blank limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';

let app: TestApp;
let admin: SeededUser;
const lists: [string, number][] = [];

beforeAll(async () => {
  app = await startTestApp();
  admin = await seedUserWithKey(app, { grants: ['*'] });
  const api = client(app, admin.key);
  const actor = await api.post('/actors', { name: 'Paging org', type: 'organization' });
  const tension = await api.post('/tensions', { name: 'Paging', actorId: actor.body.id });
  const agent = await api.post('/users', { type: 'agent', email: 'paging-agent@test.example', name: 'Paging agent' });
  expect([actor.status, tension.status, agent.status]).toEqual([201, 201, 201]);
  lists.push(
    ['/tensions', 100],
    [`/tensions/${tension.body.tension.id}/history`, 100],
    ['/actors', 100],
    ['/users', 100],
    ['/roles', 100],
    [`/users/${agent.body.id}/api-keys`, 100],
    ['/audit', 100],
    ['/webhooks', 100],
    ['/events', 1000],
  );
});
afterAll(async () => {
  await app?.close();
});

const get = (path: string, query: string) => client(app, admin.key).get(`${path}${path.includes('?') ? '&' : '?'}${query}`);

describe('limit on every REST list', () => {
  it('serves 1, max, leading zeros and a blank limit (the default); refuses 0, max + 1 and anything not digits', async () => {
    for (const [path, max] of lists) {
      const statuses: Record<string, number> = {};
      for (const value of ['', '1', '01', String(max), '0', String(max + 1), '1e1', ' 5', '5.5', 'ten', '-1']) {
        statuses[value] = (await get(path, `limit=${encodeURIComponent(value)}`)).status;
      }
      expect([path, statuses]).toEqual([
        path,
        { '': 200, '1': 200, '01': 200, [String(max)]: 200, '0': 400, [String(max + 1)]: 400, '1e1': 400, ' 5': 400, '5.5': 400, ten: 400, '-1': 400 },
      ]);
    }
  });

  it('a refused limit is validation_failed on limit, the same on every list', async () => {
    for (const [path] of lists) {
      const res = await get(path, 'limit=1e1');
      expect([path, res.body.code, res.body.errors?.map((e: { path: string }) => e.path)]).toEqual([path, 'validation_failed', ['limit']]);
    }
  });
});

describe('cursor on every REST list', () => {
  it('a blank cursor is the first page; another list’s cursor is refused', async () => {
    const api = client(app, admin.key);
    await api.post('/actors', { name: 'Paging org 2', type: 'organization' });
    const foreign = (await api.get('/actors?limit=1')).body.nextCursor;
    expect(foreign).toEqual(expect.any(String));
    for (const [path] of lists.filter(([p]) => p !== '/events')) {
      expect([path, (await get(path, 'cursor=')).status]).toEqual([path, 200]);
      if (path === '/actors') continue;
      const res = await get(path, `cursor=${encodeURIComponent(foreign)}`);
      expect([path, res.status, res.body.errors?.[0]?.params]).toEqual([path, 400, { format: 'cursor' }]);
    }
  });
});

describe('limit on GraphQL and MCP', () => {
  it('GraphQL takes it as an Int with the same bounds on every list', async () => {
    const api = client(app, admin.key);
    for (const [field, max] of [
      ['tensions', 100],
      ['actors', 100],
      ['users', 100],
      ['roles', 100],
    ] as const) {
      const at = async (limit: number) =>
        (await api.gql(`query($l: Int) { ${field}(limit: $l) { nextCursor } }`, { l: limit })).body.errors?.[0]?.extensions?.code ?? 'ok';
      expect([field, await at(1), await at(max), await at(0), await at(max + 1)]).toEqual([field, 'ok', 'ok', 'VALIDATION_FAILED', 'VALIDATION_FAILED']);
    }
  });

  it('MCP list tools take a number or its digits, with the same bounds', async () => {
    const call = async (name: string, args: Record<string, unknown>) => {
      const res = await fetch(`${app.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
      });
      const { result } = await res.json();
      return result.isError ? result.structuredContent.code : 'ok';
    };
    for (const [tool, max] of [
      ['list_tensions', 100],
      ['list_actors', 100],
      ['list_users', 100],
      ['list_events', 1000],
    ] as const) {
      expect([
        tool,
        await call(tool, { limit: 1 }),
        await call(tool, { limit: String(max) }),
        await call(tool, { limit: 0 }),
        await call(tool, { limit: max + 1 }),
      ]).toEqual([tool, 'ok', 'ok', 'validation_failed', 'validation_failed']);
    }
  });
});
