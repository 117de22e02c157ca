// "Done to this user" (issue 36): the audit trail filtered with aboutUserId holds the entries whose target is
// the user and those whose target is one of the user's API keys (provisioned, rotated, revoked), never another
// user's keys; targetId keeps its meaning. REST and GraphQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';

let app: TestApp;
let c: ReturnType<typeof client>;
let agent = '';
let other = '';
let firstKey = '';

beforeAll(async () => {
  app = await startTestApp({ rateLimitPerMinute: 0 });
  c = client(app, (await seedUserWithKey(app, { grants: ['*'], name: 'Auditor' })).key);
  agent = (await c.post('/users', { type: 'agent', email: 'about-me@test.example', name: 'About me' })).body.id;
  other = (await c.post('/users', { type: 'agent', email: 'someone-else@test.example', name: 'Someone else' })).body.id;
  firstKey = (await c.post(`/users/${agent}/api-keys`, { name: 'billing' })).body.id;
  expect((await c.post(`/users/${agent}/api-keys/${firstKey}/rotate`, { overlapSeconds: 0 })).status).toBe(201);
  const second = (await c.post(`/users/${agent}/api-keys`, { name: 'reports' })).body.id;
  expect((await c.del(`/users/${agent}/api-keys/${second}`)).status).toBeLessThan(300);
  await c.post(`/users/${other}/api-keys`, { name: 'not mine' });
  expect((await c.patch(`/users/${agent}`, { name: 'About me too' })).status).toBe(200);
});
afterAll(async () => {
  await app?.close();
});

type Entry = { action: string; target: { type: string; id: string; label: string } };
const entries = async (query: string): Promise<Entry[]> => {
  const res = await c.get(`/audit?limit=100&${query}`);
  expect(res.status).toBe(200);
  return res.body.data;
};

describe('audit aboutUserId', () => {
  it("holds the user's own entries and its keys' entries, and no other user's keys", async () => {
    const about = await entries(`aboutUserId=${agent}`);
    expect(about.map((e) => `${e.action} ${e.target.type}`).sort()).toEqual(
      ['key.provisioned key', 'key.provisioned key', 'key.revoked key', 'key.rotated key', 'user.created user', 'user.updated user'].sort(),
    );
    expect(about.some((e) => e.target.label === 'not mine')).toBe(false);
    // targetId keeps its meaning: the user alone
    expect((await entries(`targetId=${agent}`)).map((e) => e.action).sort()).toEqual(['user.created', 'user.updated']);
    // it combines with the other filters
    expect((await entries(`aboutUserId=${agent}&action=key.revoked`)).map((e) => e.target.type)).toEqual(['key']);
    expect((await entries(`aboutUserId=${other}`)).map((e) => e.action).sort()).toEqual(['key.provisioned', 'user.created']);
    const gql = await c.gql(`query { auditLog(aboutUserId: "${agent}", action: "key.rotated") { data { action target { id } } } }`);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.auditLog.data).toEqual([{ action: 'key.rotated', target: { id: firstKey } }]);
  });

  it('refuses an aboutUserId that is not a UUID with 400, and an unknown one finds nothing', async () => {
    expect((await c.get('/audit?aboutUserId=not-a-uuid')).status).toBe(400);
    expect(await entries('aboutUserId=00000000-0000-4000-8000-000000000000')).toEqual([]);
  });
});
