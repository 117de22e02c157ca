// The roles list finds a role by a part of its name or code (issue 36: ⌘K finds roles), on REST and GraphQL,
// case-insensitively with wildcards taken literally, paged by code like the whole list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';

let app: TestApp;
let c: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp({ rateLimitPerMinute: 0 });
  c = client(app, (await seedUserWithKey(app, { grants: ['*'], name: 'Role admin' })).key);
  for (const [code, name] of [
    ['harbour_pilot', 'Harbour pilot'],
    ['harbour_master', 'Harbour master'],
    ['customs', 'Customs officer'],
    ['pct', '100% reader'],
  ])
    expect((await c.post('/roles', { code, name, permissions: ['tensions:read'] })).status).toBe(201);
});
afterAll(async () => {
  await app?.close();
});

const codes = (body: { data: { code: string }[] }) => body.data.map((r) => r.code);

describe('roles list q', () => {
  it('matches the name or the code, case-insensitively, paged by code', async () => {
    expect(codes((await c.get('/roles?q=HARBOUR')).body)).toEqual(['harbour_master', 'harbour_pilot']);
    expect(codes((await c.get('/roles?q=officer')).body)).toEqual(['customs']);
    expect(codes((await c.get('/roles?q=bour_pi')).body)).toEqual(['harbour_pilot']);
    // a wildcard is a literal character
    expect(codes((await c.get('/roles?q=%25')).body)).toEqual(['pct']);
    expect(codes((await c.get('/roles?q=nothing%20like%20this')).body)).toEqual([]);
    const first = (await c.get('/roles?q=harbour&limit=1')).body;
    expect(codes(first)).toEqual(['harbour_master']);
    expect(codes((await c.get(`/roles?q=harbour&limit=1&cursor=${encodeURIComponent(first.nextCursor)}`)).body)).toEqual(['harbour_pilot']);
    const gql = await c.gql('query { roles(q: "pilot", limit: 5) { data { code } } }');
    expect(gql.body.errors).toBeUndefined();
    expect(codes(gql.body.data.roles)).toEqual(['harbour_pilot']);
    // without q the list is whole
    expect(codes((await c.get('/roles?limit=100')).body)).toEqual(expect.arrayContaining(['customs', 'harbour_master', 'harbour_pilot', 'pct']));
  });

  it('refuses a search longer than 200 characters with 400', async () => {
    expect((await c.get(`/roles?q=${'x'.repeat(201)}`)).status).toBe(400);
    expect((await c.get(`/roles?q=${'x'.repeat(200)}`)).status).toBe(200);
  });
});
