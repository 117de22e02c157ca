// The admin app's global search over every user's API keys (issue 36's ⌘K; GraphQL `apiKeySearch`, users:read):
// by the start of a prefix as typed, a part of a name in any case, or an id; live keys first; metadata and owner,
// never a key or its hash; bad input VALIDATION_FAILED; no REST path (the contract has none).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';

let app: TestApp;
let admin: ReturnType<typeof client>;
let agent: SeededUser;
let human: SeededUser;
let prefixOf: Map<string, string>;

const SEARCH = `query ($q: String!, $limit: Int) {
  apiKeySearch(q: $q, limit: $limit) { data { id name prefix revokedAt user { id name type } } }
}`;

beforeAll(async () => {
  app = await startTestApp();
  admin = client(app, (await seedUserWithKey(app, { grants: ['*'], name: 'Searcher' })).key);
  agent = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read'], name: 'Billing Bot' });
  human = await seedUserWithKey(app, { type: 'human', grants: ['tensions:read'], name: 'Hanna Human' });
  // a second key of the agent, then revoked: it is found after the live ones
  const extra = await admin.post(`/users/${agent.userId}/api-keys`, { name: 'Billing Bot nightly export' });
  expect(extra.status).toBe(201);
  expect((await admin.del(`/users/${agent.userId}/api-keys/${extra.body.id}`)).status).toBe(204);
  const rows = await app.em().execute<{ id: string; prefix: string }[]>('select id, prefix from api_keys');
  prefixOf = new Map(rows.map((r) => [r.id, r.prefix]));
});
afterAll(async () => {
  await app?.close();
});

async function search(q: string, limit?: number, by = admin) {
  const res = await by.gql(SEARCH, { q, ...(limit === undefined ? {} : { limit }) });
  return res.body;
}

describe('apiKeySearch', () => {
  it('finds a key of any user by the start of its prefix, as typed; not by its middle, nor in another case', async () => {
    const prefix = prefixOf.get(human.keyId)!;
    for (const start of [prefix, prefix.slice(0, 8)]) {
      const found = (await search(start)).data.apiKeySearch.data;
      expect(found.map((k: { id: string }) => k.id)).toContain(human.keyId);
      for (const k of found) expect(prefixOf.get(k.id)!.startsWith(start) || k.name.toLowerCase().includes(start.toLowerCase())).toBe(true);
    }
    expect((await search(prefix.slice(4))).data.apiKeySearch.data.map((k: { id: string }) => k.id)).not.toContain(human.keyId);
    const swapped = prefix.replace(/[a-z]/g, (c) => c.toUpperCase()).replace(/^MK_/, 'mk_');
    if (swapped !== prefix) expect((await search(swapped)).data.apiKeySearch.data.map((k: { id: string }) => k.id)).not.toContain(human.keyId);
  });

  it('finds by a part of the name in any case, live keys first, with the owner; and by id', async () => {
    const found = (await search('bILLING bot')).data.apiKeySearch.data;
    expect(found.map((k: { name: string }) => k.name)).toEqual(['Billing Bot key', 'Billing Bot nightly export']);
    expect(found[0]).toMatchObject({ revokedAt: null, user: { id: agent.userId, name: 'Billing Bot', type: 'agent' } });
    expect(found[1].revokedAt).not.toBeNull();
    const byId = (await search(human.keyId.toUpperCase())).data.apiKeySearch.data;
    expect(byId).toMatchObject([{ id: human.keyId, user: { id: human.userId, name: 'Hanna Human', type: 'human' } }]);
    expect((await search('no such key anywhere')).data.apiKeySearch.data).toEqual([]);
  });

  it('takes LIKE’s wildcards as text and answers at most limit keys (5 when left out)', async () => {
    expect((await search('%')).data.apiKeySearch.data).toEqual([]);
    expect((await search('_')).data.apiKeySearch.data).toEqual([]);
    for (let i = 0; i < 6; i++) expect((await admin.post(`/users/${agent.userId}/api-keys`, { name: `Batch ${i}` })).status).toBe(201);
    expect((await search('batch')).data.apiKeySearch.data).toHaveLength(5);
    expect((await search('batch', 20)).data.apiKeySearch.data).toHaveLength(6);
    expect((await search('batch', 1)).data.apiKeySearch.data).toHaveLength(1);
  });

  it('never answers a key or its hash', async () => {
    const res = await admin.gql(`query { apiKeySearch(q: "Billing") { data { id key } } }`);
    expect(res.body.errors?.[0]?.message).toMatch(/Cannot query field "key"/);
    const everything = JSON.stringify((await search('mk_', 20)).data);
    const hashes = await app.em().execute<{ key_hash: string }[]>('select key_hash from api_keys');
    for (const { key_hash } of hashes) expect(everything).not.toContain(key_hash);
    for (const seeded of [agent, human]) expect(everything).not.toContain(seeded.key);
  });

  it('refuses bad input (blank, over 200 characters, limit 0 or 21) and a caller without users:read; has no REST path', async () => {
    const code = (body: { errors?: { extensions?: { code?: string } }[] }) => body.errors?.[0]?.extensions?.code;
    expect(code(await search(''))).toBe('VALIDATION_FAILED');
    expect(code(await search('   '))).toBe('VALIDATION_FAILED');
    expect(code(await search('x'.repeat(201)))).toBe('VALIDATION_FAILED');
    expect((await search('x'.repeat(200))).data.apiKeySearch.data).toEqual([]);
    expect(code(await search('mk_', 0))).toBe('VALIDATION_FAILED');
    expect(code(await search('mk_', 21))).toBe('VALIDATION_FAILED');
    const reader = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read', 'roles:read'] })).key);
    const refused = await search('mk_', undefined, reader);
    expect([code(refused), refused.errors?.[0]?.extensions?.missingPermission]).toEqual(['FORBIDDEN', 'users:read']);
    expect((await admin.get('/api-keys/search?q=mk_')).status).toBe(404);
  });

  it('has an index for each way of finding (with sequential scans priced out, as on a table of many keys)', async () => {
    await app.em().transactional(async (tx) => {
      await tx.execute('set local enable_seqscan = off');
      for (const [sql, param, index] of [
        ['select id from api_keys where prefix like ? order by created_at desc limit 5', 'mk_Ab%', 'api_keys_prefix_idx'],
        ['select id from api_keys where name ilike ? order by created_at desc limit 5', '%billing%', 'api_keys_name_trgm_idx'],
      ]) {
        const plan = (await tx.execute<{ 'QUERY PLAN': string }[]>(`explain ${sql}`, [param])).map((r) => r['QUERY PLAN']).join('\n');
        expect(plan, plan).toContain(index);
      }
    });
  });
});
