// Totals of the users and actors lists (issue 36): "1–20 of N" in the admin app, exact up to 10,000,
// "10,000+" beyond, counted with a LIMIT (never every row); registry entries on GraphQL (`usersTotal`, `actorsTotal`; REST keeps the contract's paths).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { insertUser, newActor } from '../../support/tensions.js';
import { countUserRows } from '../../../server/persistence/users.js';
import { countActorRows } from '../../../server/persistence/actors.js';
import { boundedTotal, TOTAL_BOUND } from '../../../server/application/list-total.js';

let app: TestApp;
let c: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp({ rateLimitPerMinute: 0 });
  c = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['users:read', 'actors:*'], name: 'Counter' })).key);
  for (let i = 0; i < 7; i++) await insertUser(app, { name: `Agent ${i}`, type: 'agent', status: i < 2 ? 'deactivated' : 'active' });
  for (let i = 0; i < 5; i++) await insertUser(app, { name: `Human ${i}` });
  for (let i = 0; i < 6; i++) await newActor(c, `Harbour ${i}`, i % 2 ? 'individual' : 'organization');
  await newActor(c, 'Customs office');
});
afterAll(async () => {
  await app?.close();
});

/** Every page of a list through its API. */
async function allPages(path: string): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await c.get(`${path}${sep}limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status).toBe(200);
    out.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

/** A total's answer; the field with its arguments. */
async function total(field: string): Promise<unknown> {
  const res = await c.gql(`query { ${field} { count exact } }`);
  expect(res.body.errors, field).toBeUndefined();
  return Object.values(res.body.data as Record<string, unknown>)[0];
}

/** The error code a total's query answers. */
async function refusal(field: string): Promise<unknown> {
  const res = await c.gql(`query { ${field} { count exact } }`);
  return res.body.errors?.[0]?.extensions?.code;
}

describe('users and actors totals: exact up to a bound', () => {
  it('equal the number of items the pages hold for the same filters', async () => {
    for (const [list, filter, gqlArgs] of [
      ['users', '', ''],
      ['users', 'type=agent', '(type: agent)'],
      ['users', 'type=agent&status=active', '(type: agent, status: active)'],
      ['users', 'q=HUMAN', '(q: "HUMAN")'],
      ['actors', '', ''],
      ['actors', 'type=individual', '(type: individual)'],
      ['actors', 'q=harbour', '(q: "harbour")'],
      ['actors', 'q=no%20such%20name', '(q: "no such name")'],
    ] as const) {
      const n = (await allPages(`/${list}${filter ? `?${filter}` : ''}`)).length;
      const gql = await c.gql(`query { ${list}Total${gqlArgs} { count exact } }`);
      expect(gql.body.errors, `${list}Total${gqlArgs}`).toBeUndefined();
      expect(gql.body.data[`${list}Total`]).toEqual({ count: n, exact: true });
    }
    expect(await total('usersTotal(type: agent, status: deactivated)')).toEqual({ count: 2, exact: true });
    expect(await total('actorsTotal(q: "zzz")')).toEqual({ count: 0, exact: true });
    // not a REST path: the contract has none
    expect((await c.get('/users/count')).status).toBe(404);
  });

  it('says "more than 10,000" past the bound, and counts at most bound + 1 rows', async () => {
    expect(boundedTotal(TOTAL_BOUND)).toEqual({ count: 10_000, exact: true });
    expect(boundedTotal(TOTAL_BOUND + 1)).toEqual({ count: 10_000, exact: false });
    expect(boundedTotal(0)).toEqual({ count: 0, exact: true });
    const users = (await allPages('/users')).length;
    expect(await countUserRows(app.em(), {}, 3)).toBe(4);
    expect(await countUserRows(app.em(), {}, users)).toBe(users);
    expect(await countUserRows(app.em(), {}, users - 1)).toBe(users);
    expect(await countActorRows(app.em(), { type: 'organization' }, 2)).toBe(3);
    expect(await countActorRows(app.em(), { type: 'organization' }, 100)).toBe(4);
  });

  it('refuses bad filters and a caller without the list permission', async () => {
    expect(await refusal(`usersTotal(q: "${'x'.repeat(201)}")`)).toBe('VALIDATION_FAILED');
    expect(await refusal('usersTotal(type: robot)')).toBe('VALIDATION_FAILED');
    expect(await refusal(`actorsTotal(q: "${'x'.repeat(201)}")`)).toBe('VALIDATION_FAILED');
    expect(await total(`actorsTotal(q: "${'x'.repeat(200)}")`)).toEqual({ count: 0, exact: true });
    const actorsOnly = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['actors:read'] })).key);
    const refused = await actorsOnly.gql('query { usersTotal { count } }');
    expect([refused.body.errors?.[0]?.extensions?.code, refused.body.errors?.[0]?.extensions?.missingPermission]).toEqual(['FORBIDDEN', 'users:read']);
    expect((await actorsOnly.gql('query { actorsTotal { count } }')).body.data.actorsTotal.count).toBe(7);
  });
});
