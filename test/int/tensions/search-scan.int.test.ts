// A search without a trigram (one or two letters, `a b`) has no index that finds it: one request reads at
// most `searchScanMax` tensions in the list's order (issue 37: no query scans the table unbounded). Its page
// may then be short, with a cursor that goes on after the last tension it read, and its total says "at
// least". Here the bound is 10 tensions, so a 60-tension list shows it; in service it is 100,000.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { newActor, newTension } from '../../support/tensions.js';

let app: TestApp;
let c: ReturnType<typeof client>;
let small: string;
/** The tensions whose texts hold `zq`, in the default order (score descending, then id descending). */
let holding: { id: string; score: number; name: string }[] = [];

beforeAll(async () => {
  app = await startTestApp({}, { searchScanMax: 10 });
  c = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*'] })).key);
  const big = await newActor(c, 'Scan org');
  small = await newActor(c, 'Small org');
  for (let i = 0; i < 60; i++) {
    // every 13th holds the text, in its name, its context or its future, in either case
    const at = i % 13 === 0 ? i % 3 : -1;
    const body = {
      name: `Tension ${i}${at === 0 ? ' xZQy' : ''}`,
      currentContext: at === 1 ? 'has zq inside' : 'plain',
      potentialFuture: at === 2 ? 'ZQ' : null,
      score: (i % 10) + 1,
      actorId: i < 6 ? small : big,
    };
    const t = await newTension(c, body);
    if (at >= 0) holding.push({ id: t.id, score: body.score, name: body.name });
  }
  holding = holding.sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : -1));
}, 120_000);
afterAll(async () => {
  await app?.close();
});

/** Every page of a list, following nextCursor: the ids and each page's size. */
async function pages(query: string, api = c) {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < 100; n++) {
    const res = await api.get(`/tensions?${query}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(...res.body.data.map((t: { id: string }) => t.id));
    sizes.push(res.body.data.length);
    cursor = res.body.nextCursor;
    if (!cursor) return { ids, sizes };
  }
  throw new Error('the cursors never ended');
}

describe('a search without a trigram, at most searchScanMax tensions a request', () => {
  it('pages, followed to the end, hold every match once in the list order; some are short', async () => {
    expect(holding).toHaveLength(5);
    const byScore = await pages('q=zq');
    expect(byScore.ids).toEqual(holding.map((t) => t.id));
    // 60 tensions, 10 a request: at least 6 requests for 5 matches, some pages short or empty
    expect(byScore.sizes.length).toBeGreaterThanOrEqual(6);
    expect(byScore.sizes.some((n) => n < 2)).toBe(true);
    const byName = await pages('q=ZQ&sort=name');
    expect(byName.ids).toEqual([...holding].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1)).map((t) => t.id));
    // the grouped sorts' cursors (a state and its score; a party's name and id, or none for no lead) resume too
    for (const sort of ['state', '-state', 'lead', '-lead', 'actor', '-actor']) {
      const grouped = await pages(`q=zq&sort=${sort}`);
      expect([...grouped.ids].sort(), sort).toEqual(holding.map((t) => t.id).sort());
    }
    // a text with a trigram is found through its index, in full pages
    const indexed = await pages('q=xzqy');
    expect(indexed.ids).toHaveLength(holding.filter((t) => /xZQy/.test(t.name)).length);
    expect(indexed.sizes.slice(0, -1).every((n) => n === 2)).toBe(true);
  });

  it('a total over part of the list is "at least" (exact: false); within the bound it is exact', async () => {
    const total = async (args: string) => {
      const res = await c.gql(`query { tensionsTotal(${args}) { count exact } }`);
      expect(res.body.errors).toBeUndefined();
      return res.body.data.tensionsTotal as { count: number; exact: boolean };
    };
    const part = await total('q: "zq"');
    expect(part.exact).toBe(false);
    expect(part.count).toBeLessThanOrEqual(holding.length);
    // the small actor's 6 tensions are within 10: counted exactly (tension 0 holds the text)
    expect(await total(`q: "zq", actorId: "${small}"`)).toEqual({ count: 1, exact: true });
  });
});

// The bound's edge: one tension a request. Each walk then reads a single row (its second reading, where a
// walk stopped, is the first row from the cursor), and the pages still hold every match once, in order.
describe('a search without a trigram at one tension a request', () => {
  let one: TestApp;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    one = await startTestApp({}, { searchScanMax: 1 });
    api = client(one, (await seedUserWithKey(one, { type: 'agent', grants: ['tensions:*', 'actors:*', 'users:read'] })).key);
    const actors = [await newActor(api, 'Bound A'), await newActor(api, 'Bound B')];
    for (let i = 0; i < 12; i++) await newTension(api, { name: `Edge ${i}${i % 4 === 1 ? ' zq' : ''}`, score: (i % 5) + 1, actorId: actors[i % 2] });
  }, 120_000);
  afterAll(async () => {
    await one?.close();
  });

  it('pages hold every match once, in the order of the list without q, under every kind of sort', async () => {
    for (const sort of ['-score', 'name', 'state', 'lead', '-actor']) {
      const everything = await api.get(`/tensions?sort=${sort}&limit=100`);
      const expected = everything.body.data.filter((t: { name: string }) => t.name.endsWith(' zq')).map((t: { id: string }) => t.id);
      expect(expected, sort).toHaveLength(3);
      const walked = await pages(`q=zq&sort=${sort}`, api);
      expect(walked.ids, sort).toEqual(expected);
      // one row read a request: about a request a tension
      expect(walked.sizes.length, sort).toBeGreaterThanOrEqual(12);
    }
  });
});
