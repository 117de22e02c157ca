// Tension lists (filters, sorts, keyset paging) and the GraphQL face of the same use cases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { insertUser, newActor, newTension } from '../../support/tensions.js';

let app: TestApp;
let c: ReturnType<typeof client>;
let orgA: string;
let orgB: string;
let lead: string;

beforeAll(async () => {
  app = await startTestApp();
  c = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*'] })).key);
  orgA = await newActor(c, 'Org A');
  orgB = await newActor(c, 'Org B');
  lead = await insertUser(app, { name: 'Lead' });
  const specs = [
    { name: 'Alpha', score: 9, actorId: orgA, currentContext: 'Coffee supply is short' },
    { name: 'bravo', score: 3, actorId: orgA, leadUserId: lead },
    { name: 'Charlie', score: 9, actorId: orgB, potentialFuture: 'A COFFEE bar' },
    { name: '100% sure_thing', score: 5, actorId: orgB },
    { name: 'Delta', score: 1, actorId: orgA },
  ];
  for (const s of specs) await newTension(c, s);
  const [, , , , delta] = (await c.get('/tensions?sort=createdAt')).body.data;
  await c.post(`/tensions/${delta.id}/resolve`);
});
afterAll(async () => {
  await app?.close();
});

const names = (res: { body: { data: { name: string }[] } }) => res.body.data.map((t) => t.name);

describe('GET /tensions', () => {
  it('sorts by -score by default (ties by id) and by each field in both directions', async () => {
    const def = await c.get('/tensions');
    expect(def.body.data.map((t: { score: number }) => t.score)).toEqual([9, 9, 5, 3, 1]);
    expect(names(await c.get('/tensions?sort=createdAt'))).toEqual(['Alpha', 'bravo', 'Charlie', '100% sure_thing', 'Delta']);
    expect(names(await c.get('/tensions?sort=-createdAt'))).toEqual(['Delta', '100% sure_thing', 'Charlie', 'bravo', 'Alpha']);
    expect(names(await c.get('/tensions?sort=-updatedAt'))[0]).toBe('Delta');
    const byName = names(await c.get('/tensions?sort=name'));
    expect(names(await c.get('/tensions?sort=-name'))).toEqual([...byName].reverse());
    expect(names(await c.get('/tensions?sort=score'))).toEqual(['Delta', 'bravo', '100% sure_thing', expect.any(String), expect.any(String)]);
  });

  it('filters by state, actor, lead, minScore and q (case-insensitive, wildcards literal)', async () => {
    expect(names(await c.get('/tensions?state=resolved'))).toEqual(['Delta']);
    expect((await c.get(`/tensions?actorId=${orgB}`)).body.data.every((t: { actorId: string }) => t.actorId === orgB)).toBe(true);
    expect(names(await c.get(`/tensions?leadUserId=${lead}`))).toEqual(['bravo']);
    expect(names(await c.get('/tensions?minScore=5&sort=name')).sort()).toEqual(['100% sure_thing', 'Alpha', 'Charlie']);
    expect(names(await c.get('/tensions?q=coffee&sort=name')).sort()).toEqual(['Alpha', 'Charlie']);
    expect(names(await c.get('/tensions?q=BRAVO'))).toEqual(['bravo']);
    expect(names(await c.get('/tensions?q=%25'))).toEqual(['100% sure_thing']);
    expect(names(await c.get('/tensions?q=_'))).toEqual(['100% sure_thing']);
    expect(names(await c.get(`/tensions?state=alive&actorId=${orgA}&minScore=3&sort=score`))).toEqual(['bravo', 'Alpha']);
  });

  it('pages with an opaque cursor, each row exactly once, in every sort', async () => {
    for (const sort of ['-score', 'score', 'name', '-name', 'createdAt', '-updatedAt']) {
      const all = names(await c.get(`/tensions?sort=${sort}&limit=100`));
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: any = await c.get(`/tensions?sort=${sort}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(res.status).toBe(200);
        expect(res.body.data.length).toBeLessThanOrEqual(2);
        seen.push(...names(res));
        cursor = res.body.nextCursor;
      } while (cursor);
      expect(seen).toEqual(all);
    }
  });

  it('refuses bad filters, sorts, limits and cursors with 400', async () => {
    for (const q of [
      'state=dead',
      'sort=colour',
      'sort=-',
      'limit=0',
      'limit=101',
      'limit=x',
      'minScore=11',
      'minScore=abc',
      'actorId=nope',
      'leadUserId=1',
      'cursor=%%%',
      'bogus=1',
    ]) {
      const res = await c.get(`/tensions?${q}`);
      expect([q, res.status, res.body.code]).toEqual([q, 400, 'validation_failed']);
    }
    const page = await c.get('/tensions?limit=1');
    const other = await c.get(`/tensions?sort=name&cursor=${encodeURIComponent(page.body.nextCursor)}`);
    expect(other.status).toBe(400);
  });
});

describe('GraphQL', () => {
  const FIELDS = `tension { id name score state version currentContext actor { id name type } lead { id name type } }
    event { version type summary summaryKey summaryParams data by { kind via userName } }`;

  it('runs commands with the REST shapes and the SPEC codes upper-cased', async () => {
    const sensed = await c.gql(`mutation($i: SenseTensionInput!) { senseTension(input: $i) { ${FIELDS} } }`, {
      i: { name: 'Via GraphQL', actorId: orgA, score: 7, leadUserId: lead },
    });
    expect(sensed.body.errors).toBeUndefined();
    const t = sensed.body.data.senseTension;
    expect(t.tension).toMatchObject({
      name: 'Via GraphQL',
      score: 7,
      state: 'alive',
      version: 1,
      actor: { id: orgA, name: 'Org A', type: 'organization' },
      lead: { id: lead, name: 'Lead', type: 'human' },
    });
    expect(t.event).toMatchObject({ type: 'TensionSensed', summaryKey: 'history.sensed', by: { kind: 'agent', via: 'graphql' } });
    const id = t.tension.id;

    const rename = await c.gql(`mutation($id: ID!) { renameTension(id: $id, input: { name: "Renamed", expectedVersion: 1 }) { ${FIELDS} } }`, { id });
    expect(rename.body.data.renameTension.event).toMatchObject({ summary: 'Renamed from "Via GraphQL" to "Renamed"' });
    const conflict = await c.gql(`mutation($id: ID!) { rescoreTension(id: $id, input: { score: 2, expectedVersion: 1 }) { tension { id } } }`, { id });
    expect(conflict.body.errors[0].extensions).toMatchObject({ code: 'VERSION_CONFLICT', currentVersion: 2, expectedVersion: 1 });
    const noop = await c.gql(`mutation($id: ID!) { reopenTension(id: $id) { tension { state } event { type } } }`, { id });
    expect(noop.body.data.reopenTension).toEqual({ tension: { state: 'alive' }, event: null });
    await c.gql(`mutation($id: ID!) { dropTension(id: $id, input: {}) { tension { state } } }`, { id });
    const invalid = await c.gql(`mutation($id: ID!) { resolveTension(id: $id) { tension { state } } }`, { id });
    expect(invalid.body.errors[0].extensions).toMatchObject({ code: 'INVALID_TRANSITION', state: 'stale', command: 'resolve' });
    const revise = await c.gql(`mutation($id: ID!) { reviseTensionContext(id: $id, input: { currentContext: "ctx" }) { event { summaryKey } } }`, { id });
    expect(revise.body.data.reviseTensionContext.event.summaryKey).toBe('history.contextRevised.current');
    const unlead = await c.gql(`mutation($id: ID!) { setTensionLead(id: $id, input: { leadUserId: null }) { tension { lead { id } } event { type } } }`, {
      id,
    });
    expect(unlead.body.data.setTensionLead).toEqual({ tension: { lead: null }, event: { type: 'TensionLeadUnassigned' } });
    const reassign = await c.gql(`mutation($id: ID!, $a: ID!) { reassignTension(id: $id, input: { actorId: $a }) { event { summary } } }`, { id, a: orgB });
    expect(reassign.body.data.reassignTension.event.summary).toBe('Reassigned from Org A to Org B');
    const badScore = await c.gql(`mutation($id: ID!) { rescoreTension(id: $id, input: { score: 11 }) { tension { id } } }`, { id });
    expect(badScore.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'score' }] });
    const badLead = await c.gql(
      `mutation($id: ID!) { setTensionLead(id: $id, input: { leadUserId: "00000000-0000-4000-8000-000000000000" }) { tension { id } } }`,
      { id },
    );
    expect(badLead.body.errors[0].extensions.code).toBe('USER_NOT_FOUND');

    const history = await c.gql(`query($id: ID!) { tensionHistory(id: $id, limit: 2) { data { version summary } nextCursor } }`, { id });
    expect(history.body.data.tensionHistory.data.map((e: { version: number }) => e.version)).toEqual([6, 5]);
    expect(history.body.data.tensionHistory.nextCursor).toEqual(expect.any(String));

    const discard = await c.gql(`mutation($id: ID!) { discardTension(id: $id, input: { expectedVersion: 6 }) { tension { id } event { type summary } } }`, {
      id,
    });
    expect(discard.body.data.discardTension).toEqual({ tension: null, event: { type: 'TensionDiscarded', summary: 'Discarded' } });
    const gone = await c.gql(`query($id: ID!) { tension(id: $id) { id } }`, { id });
    expect(gone.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const still = await c.gql(`query($id: ID!) { tensionHistory(id: $id) { data { type } } }`, { id });
    expect(still.body.data.tensionHistory.data[0].type).toBe('TensionDiscarded');
  });

  it('lists with the same filters and paging as REST', async () => {
    const res = await c.gql(`{ tensions(minScore: 5, sort: name, limit: 2) { data { name } nextCursor } }`);
    expect(res.body.data.tensions.data.map((t: { name: string }) => t.name)).toEqual(names(await c.get('/tensions?minScore=5&sort=name&limit=2')));
    const bad = await c.gql(`{ tensions(sort: colour) { data { id } } }`);
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    // every closed set is an enum: REST's `-score` is `score_desc`, states are REST's words
    const desc = await c.gql(`{ tensions(sort: score_desc, state: alive, limit: 100) { data { name state } } }`);
    expect(desc.body.data.tensions.data.map((t: { name: string }) => t.name)).toEqual(names(await c.get('/tensions?sort=-score&state=alive&limit=100')));
    expect((await c.gql(`{ tensions(state: "alive") { data { id } } }`)).body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });

  it('an unknown id nulls only its own field: the rest of the answer stays (NOT_FOUND on that path)', async () => {
    const ghost = '00000000-0000-4000-8000-000000000001';
    const res = await c.gql(`query($ghost: ID!) { missing: tension(id: $ghost) { id } actor(id: $ghost) { id } tensions(limit: 1) { data { id } } }`, {
      ghost,
    });
    expect(res.body.data.missing).toBeNull();
    expect(res.body.data.actor).toBeNull();
    expect(res.body.data.tensions.data).toHaveLength(1);
    expect(res.body.errors.map((e: { path: string[]; extensions: { code: string } }) => [e.path[0], e.extensions.code]).sort()).toEqual([
      ['actor', 'ACTOR_NOT_FOUND'],
      ['missing', 'NOT_FOUND'],
    ]);
  });

  it('refuses callers without the permission', async () => {
    const reader = client(app, (await seedUserWithKey(app, { grants: ['tensions:read'] })).key);
    const res = await reader.gql(`mutation($a: ID!) { senseTension(input: { name: "x", actorId: $a }) { tension { id } } }`, { a: orgA });
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await reader.gql(`{ tensions { data { id } } }`)).body.errors).toBeUndefined();
  });
});
