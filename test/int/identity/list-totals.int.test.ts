// Totals of the users and actors lists (issue 36): "1–20 of N" in the admin app, exact up to 10,000,
// "10,000+" beyond, counted with a LIMIT (never every row); registry entries, so REST and GraphQL agree.
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

describe('users and actors totals: exact up to a bound, the same on REST and GraphQL', () => {
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
      const rest = await c.get(`/${list}/count${filter ? `?${filter}` : ''}`);
      expect([rest.status, rest.body], `${list}?${filter}`).toEqual([200, { count: n, exact: true }]);
      const gql = await c.gql(`query { ${list}Total${gqlArgs} { count exact } }`);
      expect(gql.body.errors, `${list}Total${gqlArgs}`).toBeUndefined();
      expect(gql.body.data[`${list}Total`]).toEqual({ count: n, exact: true });
    }
    expect((await c.get('/users/count?type=agent&status=deactivated')).body).toEqual({ count: 2, exact: true });
    expect((await c.get('/actors/count?q=zzz')).body).toEqual({ count: 0, exact: true });
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

  it('refuses bad filters with 400 and a caller without the list permission with 403', async () => {
    expect((await c.get(`/users/count?q=${'x'.repeat(201)}`)).status).toBe(400);
    expect((await c.get('/users/count?type=robot')).body.code).toBe('validation_failed');
    expect((await c.get('/users/count?limit=5')).status).toBe(400);
    expect((await c.get(`/actors/count?q=${'x'.repeat(201)}`)).status).toBe(400);
    expect((await c.get(`/actors/count?q=${'x'.repeat(200)}`)).body).toEqual({ count: 0, exact: true });
    expect((await c.gql('query { usersTotal(type: robot) { count } }')).body.errors?.length).toBe(1);
    const actorsOnly = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['actors:read'] })).key);
    const refused = await actorsOnly.get('/users/count');
    expect([refused.status, refused.body.missingPermission]).toEqual([403, 'users:read']);
    expect((await actorsOnly.get('/actors/count')).status).toBe(200);
  });
});
