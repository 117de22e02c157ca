// The tension list sorted by state, actor and lead (issue 36; SPEC §5 is silent on these sorts): the order with
// its ties and the tensions without a lead, keyset paging through every page, filters and `q`, the three faces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { mcpHttpClient } from '../../support/mcp.js';
import { callOk } from '../../support/mcp-lifecycle.js';
import { insertUser, newActor, newTension } from '../../support/tensions.js';

interface Row {
  id: string;
  name: string;
  score: number;
  state: 'alive' | 'resolved' | 'stale';
  actor: { id: string; name: string };
  lead: { id: string; name: string } | null;
}

let app: TestApp;
let c: ReturnType<typeof client>;
let key: string;
const actors: Record<string, string> = {};
const users: Record<string, string> = {};
let all: Row[];

beforeAll(async () => {
  app = await startTestApp();
  key = (await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*'] })).key;
  c = client(app, key);
  // Two actors and two users whose names differ only in case: ties of the name, broken by the party's id.
  for (const name of ['beta', 'Alpha', 'alpha', 'Gamma']) actors[name] = await newActor(c, name);
  for (const name of ['zoe', 'Adam', 'adam']) users[name] = await insertUser(app, { name });
  const actorNames = Object.keys(actors);
  const leadNames = [...Object.keys(users), null];
  for (let i = 0; i < 24; i++) {
    const lead = leadNames[i % leadNames.length];
    const t = await newTension(c, {
      name: `T${String(i).padStart(2, '0')}`,
      actorId: actors[actorNames[(i * 7) % actorNames.length]],
      score: [5, 5, 8, 2][i % 4],
      ...(lead ? { leadUserId: users[lead] } : {}),
      ...(i % 3 === 0 ? { currentContext: 'Coffee supply is short' } : {}),
    });
    if (i % 5 === 1) expect((await c.post(`/tensions/${t.id}/resolve`)).status).toBe(200);
    if (i % 5 === 2) expect((await c.post(`/tensions/${t.id}/drop`)).status).toBe(200);
  }
  all = (await c.get('/tensions?limit=100')).body.data;
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
const STATES = ['alive', 'resolved', 'stale'];

/** The order each sort promises, spelt out in JavaScript over the rows the list returned. */
function expected(rows: Row[], sort: string): string[] {
  const desc = sort.startsWith('-');
  const by = sort.replace(/^-/, '');
  const dir = desc ? -1 : 1;
  const sorted = [...rows].sort((a, b) => {
    if (by === 'state') return dir * cmp(STATES.indexOf(a.state), STATES.indexOf(b.state)) || cmp(b.score, a.score) || cmp(b.id, a.id);
    if (by === 'lead' && (a.lead === null || b.lead === null)) return cmp(Number(a.lead === null), Number(b.lead === null)) || dir * cmp(a.id, b.id);
    const pa = by === 'actor' ? a.actor : a.lead!;
    const pb = by === 'actor' ? b.actor : b.lead!;
    return dir * (cmp(pa.name.toLowerCase(), pb.name.toLowerCase()) || cmp(pa.id, pb.id) || cmp(a.id, b.id));
  });
  return sorted.map((r) => r.name);
}

const SORTS = ['state', '-state', 'actor', '-actor', 'lead', '-lead'];
const names = (rows: Row[]) => rows.map((r) => r.name);

async function everyPage(query: string, limit: number): Promise<Row[]> {
  const seen: Row[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const res: { status: number; body: { data: Row[]; nextCursor: string | null } } = await c.get(
      `/tensions?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    seen.push(...res.body.data);
    cursor = res.body.nextCursor;
    if (!cursor) return seen;
  }
  throw new Error(`${query}: more than 100 pages`);
}

describe('GET /tensions?sort=state|actor|lead', () => {
  it('the data has what the sorts must order: every state, name ties across parties, tensions without a lead', () => {
    expect(all).toHaveLength(24);
    expect(new Set(all.map((r) => r.state))).toEqual(new Set(STATES));
    expect(all.filter((r) => r.lead === null)).toHaveLength(6);
    expect(new Set(all.map((r) => r.actor.name))).toEqual(new Set(['beta', 'Alpha', 'alpha', 'Gamma']));
  });

  it('orders by state (then strongest first), by actor and by lead name case-insensitively (ties by their id, then the id), in both directions', async () => {
    for (const sort of SORTS) {
      const res = await c.get(`/tensions?sort=${sort}&limit=100`);
      expect(res.status).toBe(200);
      expect(names(res.body.data), sort).toEqual(expected(all, sort));
    }
    // spot checks of what the expectation itself says
    const byState = (await c.get('/tensions?sort=-state&limit=100')).body.data as Row[];
    expect(byState[0].state).toBe('stale');
    expect(byState.at(-1)!.state).toBe('alive');
    const aliveScores = byState.filter((r) => r.state === 'alive').map((r) => r.score);
    expect(aliveScores).toEqual([...aliveScores].sort((a, b) => b - a));
  });

  it('lists the tensions without a lead last, in both directions', async () => {
    for (const sort of ['lead', '-lead']) {
      const rows = (await c.get(`/tensions?sort=${sort}&limit=100`)).body.data as Row[];
      expect(
        rows.slice(-6).every((r) => r.lead === null),
        sort,
      ).toBe(true);
      expect(
        rows.slice(0, -6).every((r) => r.lead !== null),
        sort,
      ).toBe(true);
    }
    const asc = ((await c.get('/tensions?sort=lead&limit=100')).body.data as Row[]).map((r) => r.lead?.name ?? null);
    expect(asc.slice(0, 6).map((n) => n?.toLowerCase())).toEqual(Array(6).fill('adam'));
    expect(asc.slice(12, 18)).toEqual(Array(6).fill('zoe'));
  });

  it('pages through every sort, alone and with filters and q, each tension exactly once and in order', async () => {
    const filters: [string, (r: Row) => boolean][] = [
      ['', () => true],
      ['state=alive', (r) => r.state === 'alive'],
      ['minScore=5', (r) => r.score >= 5],
      ['q=coffee', (r) => Number(r.name.slice(1)) % 3 === 0],
      ['q=coffee&state=alive', (r) => Number(r.name.slice(1)) % 3 === 0 && r.state === 'alive'],
      [`actorId=${actors.alpha}`, (r) => r.actor.id === actors.alpha],
      [`leadUserId=${users.adam}`, (r) => r.lead?.id === users.adam],
      [`actorId=${actors.beta}&minScore=5`, (r) => r.actor.id === actors.beta && r.score >= 5],
    ];
    for (const [filter, keep] of filters) {
      const want = expected(all.filter(keep), 'state');
      expect(want.length, filter).toBeGreaterThan(0);
      for (const sort of SORTS) {
        const label = `${filter || 'no filter'} sort=${sort}`;
        const full = (await c.get(`/tensions?${filter}&sort=${sort}&limit=100`)).body.data as Row[];
        expect(names(full), label).toEqual(expected(all.filter(keep), sort));
        for (const limit of filter ? [3] : [1, 5]) {
          const paged = await everyPage(`${filter}&sort=${sort}`, limit);
          expect(names(paged), `${label} limit=${limit}`).toEqual(names(full));
        }
      }
    }
  }, 120_000);

  it('a cursor of one sort is 400 on another, and an unknown sort is 400', async () => {
    const cursorOf = async (sort: string) => (await c.get(`/tensions?sort=${sort}&limit=2`)).body.nextCursor as string;
    for (const [from, to] of [
      ['actor', 'lead'],
      ['lead', 'actor'],
      ['actor', '-actor'],
      ['state', 'score'],
      ['-score', 'state'],
      ['name', 'actor'],
    ]) {
      const res = await c.get(`/tensions?sort=${to}&cursor=${encodeURIComponent(await cursorOf(from))}`);
      expect(res.status, `${from} → ${to}`).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
    for (const sort of ['status', '--lead', 'lead-', 'Actor', 'actorName', 'lead_desc']) {
      const res = await c.get(`/tensions?sort=${sort}`);
      expect(res.status, sort).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
  });

  it('a page boundary inside the tensions without a lead goes on with them only', async () => {
    const rows = await everyPage('sort=-lead', 19);
    expect(names(rows)).toEqual(expected(all, '-lead'));
  });
});

describe('the same sorts on GraphQL and MCP', () => {
  it('GraphQL takes state, actor_desc, lead_desc … and answers as REST does, page by page', async () => {
    for (const [value, rest] of [
      ['state_desc', '-state'],
      ['actor', 'actor'],
      ['lead_desc', '-lead'],
    ]) {
      const first = await c.gql(`{ tensions(sort: ${value}, limit: 4) { data { name } nextCursor } }`);
      expect(first.body.errors, value).toBeUndefined();
      const page = first.body.data.tensions;
      expect(page.data.map((t: { name: string }) => t.name)).toEqual(expected(all, rest).slice(0, 4));
      const second = await c.gql(`query($c: String) { tensions(sort: ${value}, limit: 4, cursor: $c) { data { name } } }`, { c: page.nextCursor });
      expect(second.body.data.tensions.data.map((t: { name: string }) => t.name)).toEqual(expected(all, rest).slice(4, 8));
    }
  });

  it('MCP list_tensions takes the new sorts', async () => {
    const m = await mcpHttpClient(app, key);
    try {
      const page = (await callOk(m, 'list_tensions', { sort: '-lead', limit: 100 })) as { data: Row[] };
      expect(names(page.data)).toEqual(expected(all, '-lead'));
    } finally {
      await m.close();
    }
  });
});
