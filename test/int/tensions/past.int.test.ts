// Reading the past (SPEC §15) through the real app: as-of reads by version and by time on every face, the
// changes between two versions, and old event shapes (schemaVersion 1) read through their upcaster.
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { mcpHttpClient } from '../../support/mcp.js';
import { insertUser, newActor, newTension } from '../../support/tensions.js';

let app: TestApp;
let c: ReturnType<typeof client>;
let mcp: Client;
let orgA: string;
let orgB: string;
let alice: string;
let bob: string;
/** The service's clock: pinned, and moved by the tests (one second per command). */
let now = new Date('2026-03-01T09:00:00.000Z');
const tick = (ms = 1000) => (now = new Date(now.getTime() + ms));

beforeAll(async () => {
  app = await startTestApp({ rateLimitPerMinute: 0 }, { clock: () => now });
  const seeded = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*', 'projections:rebuild', 'events:read'] });
  c = client(app, seeded.key);
  mcp = await mcpHttpClient(app, seeded.key);
  orgA = await newActor(c, 'Org A');
  orgB = await newActor(c, 'Org B');
  alice = await insertUser(app, { name: 'Alice' });
  bob = await insertUser(app, { name: 'Bob' });
});
afterAll(async () => {
  await mcp?.close();
  await app?.close();
});

/** A command through REST at the next second; answers the tension after it (null after a discard). */
async function run(id: string, verb: string, body?: unknown) {
  tick();
  const res = verb === 'discard' ? await c.del(`/tensions/${id}`) : await c.post(`/tensions/${id}/${verb}`, body);
  expect(res.status, `${verb} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.status === 204 ? null : res.body.tension;
}

const asOf = (id: string, query: string) => c.get(`/tensions/${id}?${query}`);

describe('after each step of a random command walk, the as-of read of that version is the tension as it was then', () => {
  function rng(seed: number) {
    return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  }

  for (const seed of [11, 12, 13]) {
    it(`walk ${seed}`, async () => {
      const rand = rng(seed);
      const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
      tick();
      const first = await newTension(c, { name: `walk ${seed}`, actorId: orgA, score: 5, currentContext: 'c0' });
      const id = first.id;
      const seen = new Map<number, { tension: unknown; at: string }>([[1, { tension: first, at: now.toISOString() }]]);
      const moves: (() => [string, unknown])[] = [
        () => ['rename', { name: pick(['n0', 'n1', 'n2']) }],
        () => ['rescore', { score: 1 + Math.floor(rand() * 10) }],
        () => ['revise', { currentContext: pick([null, 'c0', 'c1']), potentialFuture: pick([null, 'f0', 'f1']) }],
        () => ['lead', { leadUserId: pick([alice, bob, null]) }],
        () => ['reassign', { actorId: pick([orgA, orgB]) }],
        () => [pick(['resolve', 'drop', 'reopen', 'revive']), undefined],
      ];
      for (let step = 0; step < 40; step++) {
        const [verb, body] = pick(moves)();
        tick();
        const res = await c.post(`/tensions/${id}/${verb}`, body);
        if (res.status === 409) continue; // a move the lifecycle refuses here
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const tension = res.body.tension;
        if (res.body.event) seen.set(tension.version, { tension, at: now.toISOString() });
        // the as-of read of the version just made equals the tension now
        const past = await asOf(id, `asOfVersion=${tension.version}`);
        expect(past.status).toBe(200);
        expect(past.body).toEqual({ ...tension, asOf: { version: tension.version, occurredAt: res.body.event?.occurredAt ?? seen.get(tension.version)!.at } });
      }
      // and every earlier version still reads as it was, by version and by the time it was recorded
      for (const [version, { tension, at }] of seen) {
        expect((await asOf(id, `asOfVersion=${version}`)).body).toEqual({ ...(tension as object), asOf: { version, occurredAt: at } });
        expect((await asOf(id, `asOf=${encodeURIComponent(at)}`)).body).toEqual({ ...(tension as object), asOf: { version, occurredAt: at } });
      }
    });
  }
});

describe('as of a time', () => {
  it('between two commands: the earlier version; before the first event: 404; after the last: the current version', async () => {
    tick();
    const t = await newTension(c, { name: 'Timed', actorId: orgA });
    const sensedAt = now;
    await run(t.id, 'rename', { name: 'Timed 2' });
    const renamedAt = now;

    const between = await asOf(t.id, `asOf=${new Date(sensedAt.getTime() + 500).toISOString()}`);
    expect(between.status).toBe(200);
    expect([between.body.name, between.body.version, between.body.asOf]).toEqual(['Timed', 1, { version: 1, occurredAt: sensedAt.toISOString() }]);
    // the moment itself counts as "at or before"
    expect((await asOf(t.id, `asOf=${renamedAt.toISOString()}`)).body.name).toBe('Timed 2');
    // an offset other than Z names the same moment
    const plusOne = new Date(renamedAt.getTime() + 3_600_000).toISOString().replace('Z', '+01:00');
    expect((await asOf(t.id, `asOf=${encodeURIComponent(plusOne)}`)).body.version).toBe(2);

    const before = await asOf(t.id, `asOf=${new Date(sensedAt.getTime() - 1).toISOString()}`);
    expect([before.status, before.body.code]).toEqual([404, 'not_found']);
    const later = await asOf(t.id, 'asOf=2999-01-01T00:00:00Z');
    expect([later.status, later.body.version]).toEqual([200, 2]);
  });
});

describe('a discarded tension', () => {
  it('reads as of any version before its discard; as of the discard, or after it, 404 as GET answers', async () => {
    tick();
    const t = await newTension(c, { name: 'Short-lived', actorId: orgA, leadUserId: alice });
    await run(t.id, 'resolve');
    const resolvedAt = now;
    await run(t.id, 'discard');
    expect((await c.get(`/tensions/${t.id}`)).status).toBe(404);

    const v2 = await asOf(t.id, 'asOfVersion=2');
    expect([v2.status, v2.body.state, v2.body.lead]).toEqual([200, 'resolved', { id: alice, name: 'Alice', type: 'human' }]);
    expect((await asOf(t.id, `asOf=${resolvedAt.toISOString()}`)).body.version).toBe(2);
    for (const q of ['asOfVersion=3', `asOf=${now.toISOString()}`, 'asOfVersion=4']) {
      const res = await asOf(t.id, q);
      expect([q, res.status, res.body.code]).toEqual([q, 404, 'not_found']);
    }
    // its changes, by default up to the last version it existed at
    expect((await c.get(`/tensions/${t.id}/changes?from=1`)).body).toEqual({ from: 1, to: 2, changes: [{ field: 'state', from: 'alive', to: 'resolved' }] });
    expect((await c.get(`/tensions/${t.id}/changes?from=1&to=3`)).status).toBe(404);
  });

  it('names its actor and lead as they were then, also after a rename, and an actor deleted since', async () => {
    const gone = await newActor(c, 'Soon gone');
    tick();
    const t = await newTension(c, { name: 'Renamed parties', actorId: gone, leadUserId: bob });
    expect((await c.patch(`/actors/${gone}`, { name: 'Renamed org' })).status).toBe(200);
    const [before] = [await asOf(t.id, 'asOfVersion=1')];
    expect(before.body.actor).toEqual({ id: gone, name: 'Soon gone', type: 'organization' });
    // GET now shows the actor's name now
    expect((await c.get(`/tensions/${t.id}`)).body.actor.name).toBe('Renamed org');
    expect((await c.del(`/actors/${gone}`)).status).toBe(204);
    const after = await asOf(t.id, 'asOfVersion=1');
    expect([after.status, after.body.actor]).toEqual([200, { id: gone, name: 'Soon gone', type: 'deleted' }]);
    expect(after.body.lead).toEqual({ id: bob, name: 'Bob', type: 'human' });
  });
});

describe('bad and conflicting parameters → 400 on every face; unknown ids and versions → 404', () => {
  let id: string;
  beforeAll(async () => {
    tick();
    id = (await newTension(c, { name: 'Params', actorId: orgA })).id;
  });

  it.each([
    'asOfVersion=1&asOf=2026-03-01T09:00:00Z',
    'asOfVersion=0',
    'asOfVersion=-1',
    'asOfVersion=abc',
    'asOfVersion=1.5',
    'asOfVersion=',
    'asOfVersion=1000000000',
    'asOfVersion=1&asOfVersion=2',
    'asOf=yesterday',
    'asOf=2026-03-01',
    'asOf=2026-03-01T09:00:00',
    'asOf=',
    'asOf=2026-02-30T09:00:00Z',
  ])('REST GET /tensions/:id?%s → 400', async (q) => {
    const res = await asOf(id, q);
    expect([res.status, res.body.code], JSON.stringify(res.body)).toEqual([400, 'validation_failed']);
  });

  it.each(['', 'from=0', 'from=2&to=1', 'from=x', 'from=1&to=', 'from=1&other=2'])('REST GET /tensions/:id/changes?%s → 400', async (q) => {
    const res = await c.get(`/tensions/${id}/changes?${q}`);
    expect([res.status, res.body.code], JSON.stringify(res.body)).toEqual([400, 'validation_failed']);
  });

  it('a version past the head, or an id that is not a tension: 404 not_found', async () => {
    expect((await asOf(id, 'asOfVersion=2')).body.code).toBe('not_found');
    expect((await asOf(randomUUID(), 'asOfVersion=1')).status).toBe(404);
    expect((await asOf('not-a-uuid', 'asOfVersion=1')).status).toBe(404);
    expect((await c.get(`/tensions/${id}/changes?from=1&to=2`)).status).toBe(404);
    expect((await c.get(`/tensions/${randomUUID()}/changes?from=1`)).status).toBe(404);
    // unknown parameters on the read of now are ignored, as they always were
    expect((await c.get(`/tensions/${id}?_=123`)).status).toBe(200);
  });

  it('GraphQL: both arguments, a version below 1, from after to → VALIDATION_FAILED; a missing version → NOT_FOUND', async () => {
    const read = `query($id: ID!, $v: Int, $at: DateTime) { tension(id: $id, asOfVersion: $v, asOf: $at) { name version asOf { version occurredAt } allowedCommands } }`;
    const code = (res: { body: { errors?: { extensions: { code: string } }[] } }) => res.body.errors?.[0]?.extensions.code;
    expect(code(await c.gql(read, { id, v: 1, at: '2026-03-01T09:00:00Z' }))).toBe('VALIDATION_FAILED');
    expect(code(await c.gql(read, { id, v: 0 }))).toBe('VALIDATION_FAILED');
    expect(code(await c.gql(read, { id, at: 'not a time' }))).toBe('VALIDATION_FAILED');
    expect(code(await c.gql(read, { id, v: 9 }))).toBe('NOT_FOUND');
    const ok = await c.gql(read, { id, v: 1 });
    expect(ok.body.data.tension).toMatchObject({ name: 'Params', version: 1, asOf: { version: 1 }, allowedCommands: [] });
    expect((await c.gql(read, { id })).body.data.tension.asOf).toBeNull();
    const changes = `query($id: ID!, $from: Int!, $to: Int) { tensionChanges(id: $id, from: $from, to: $to) { from to changes { field from to } } }`;
    expect(code(await c.gql(changes, { id, from: 2, to: 1 }))).toBe('VALIDATION_FAILED');
    expect((await c.gql(changes, { id, from: 1 })).body.data.tensionChanges).toEqual({ from: 1, to: 1, changes: [] });
  });

  it('MCP: get_tension and get_tension_changes refuse the same inputs with validation_failed', async () => {
    const call = async (name: string, args: Record<string, unknown>) =>
      (await mcp.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: any };
    for (const args of [
      { id, asOfVersion: 1, asOf: '2026-03-01T09:00:00Z' },
      { id, asOfVersion: 0 },
      { id, asOf: 'yesterday' },
    ]) {
      const res = await call('get_tension', args);
      expect([res.isError, res.structuredContent?.code], JSON.stringify(args)).toEqual([true, 'validation_failed']);
    }
    expect((await call('get_tension', { id, asOfVersion: 2 })).structuredContent.code).toBe('not_found');
    expect((await call('get_tension', { id, asOfVersion: 1 })).structuredContent).toMatchObject({ name: 'Params', asOf: { version: 1 } });
    expect((await call('get_tension_changes', { id, from: 2, to: 1 })).structuredContent.code).toBe('validation_failed');
    expect((await call('get_tension_changes', { id, from: 1 })).structuredContent).toEqual({ from: 1, to: 1, changes: [] });
  });
});

describe('changes between two versions', () => {
  it('lists every field that differs, with its value at each, and not one changed and changed back', async () => {
    tick();
    const t = await newTension(c, { name: 'Diff', actorId: orgA, score: 3, currentContext: 'was', potentialFuture: null });
    await run(t.id, 'rename', { name: 'Diffed' });
    await run(t.id, 'rescore', { score: 9 });
    await run(t.id, 'revise', { currentContext: null, potentialFuture: 'will be' });
    await run(t.id, 'lead', { leadUserId: alice });
    await run(t.id, 'reassign', { actorId: orgB });
    await run(t.id, 'drop');
    const all = await c.get(`/tensions/${t.id}/changes?from=1`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      from: 1,
      to: 7,
      changes: [
        { field: 'name', from: 'Diff', to: 'Diffed' },
        { field: 'currentContext', from: 'was', to: null },
        { field: 'potentialFuture', from: null, to: 'will be' },
        { field: 'score', from: 3, to: 9 },
        { field: 'state', from: 'alive', to: 'stale' },
        { field: 'actor', from: { id: orgA, name: 'Org A', type: 'organization' }, to: { id: orgB, name: 'Org B', type: 'organization' } },
        { field: 'lead', from: null, to: { id: alice, name: 'Alice', type: 'human' } },
      ],
    });
    // one step: only what that event changed
    expect((await c.get(`/tensions/${t.id}/changes?from=5&to=6`)).body.changes.map((x: { field: string }) => x.field)).toEqual(['actor']);
    // changed and changed back is no change
    await run(t.id, 'rename', { name: 'Other' });
    await run(t.id, 'rename', { name: 'Diffed' });
    await run(t.id, 'revive');
    await run(t.id, 'drop');
    const back = await c.get(`/tensions/${t.id}/changes?from=7&to=11`);
    expect(back.body).toEqual({ from: 7, to: 11, changes: [] });
    // GraphQL and MCP answer the same
    const gql = await c.gql(`query($id: ID!) { tensionChanges(id: $id, from: 1, to: 7) { from to changes { field from to } } }`, { id: t.id });
    expect(gql.body.data.tensionChanges).toEqual(all.body);
    expect((await mcp.callTool({ name: 'get_tension_changes', arguments: { id: t.id, from: 1, to: 7 } })).structuredContent).toEqual(all.body);
  });
});

describe('old event shapes stay readable (schemaVersion, upcasting)', () => {
  it('a stream mixing TensionLeadAssigned of version 1 (written by SQL) and 2 folds, serves and compares as one', async () => {
    tick();
    const t = await newTension(c, { name: 'Mixed', actorId: orgA });
    // version 2: a lead assigned as the first release recorded it, without previousLeadName
    await app.em().execute(
      `insert into domain_events (id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
       values (?, 'tension', ?, 2, 'TensionLeadAssigned', 1, ?::jsonb, ?::jsonb, ?)`,
      [
        randomUUID(),
        t.id,
        JSON.stringify({ leadUserId: alice, leadName: 'Alice', previousLeadUserId: null }),
        JSON.stringify({
          actorKind: 'system',
          userId: null,
          userName: null,
          apiKeyId: null,
          apiKeyName: null,
          via: 'cli',
          requestId: null,
          correlationId: null,
          causationId: null,
        }),
        tick().toISOString(),
      ],
    );
    await app.em().execute(`update tensions set lead_user_id = ?, version = 2, updated_at = ? where id = ?`, [alice, now.toISOString(), t.id]);
    // version 3: written today, as version 2 of the shape
    const led = await run(t.id, 'lead', { leadUserId: bob });
    expect(led.version).toBe(3);

    const stored: { version: number; schema_version: number }[] = await app
      .em()
      .execute(`select version, schema_version from domain_events where stream_id = ? order by version`, [t.id]);
    expect(stored.map((r) => [r.version, r.schema_version])).toEqual([
      [1, 1],
      [2, 1],
      [3, 2],
    ]);

    // the feed serves every event in today's shape, and says so
    const feed = await c.get(`/events?streamId=${t.id}`);
    const leads = feed.body.data.filter((e: { type: string }) => e.type === 'TensionLeadAssigned');
    expect(leads.map((e: { schemaVersion: number; data: unknown }) => [e.schemaVersion, e.data])).toEqual([
      [2, { leadUserId: alice, leadName: 'Alice', previousLeadUserId: null, previousLeadName: null }],
      [2, { leadUserId: bob, leadName: 'Bob', previousLeadUserId: alice, previousLeadName: 'Alice' }],
    ]);
    // so does the history
    const history = await c.get(`/tensions/${t.id}/history`);
    expect(history.body.data.map((e: { data: { previousLeadName?: unknown } }) => e.data.previousLeadName)).toEqual(['Alice', null, undefined]);
    // the past folds across both shapes
    expect((await asOf(t.id, 'asOfVersion=2')).body.lead).toEqual({ id: alice, name: 'Alice', type: 'human' });
    expect((await c.get(`/tensions/${t.id}/changes?from=2&to=3`)).body.changes).toEqual([
      { field: 'lead', from: { id: alice, name: 'Alice', type: 'human' }, to: { id: bob, name: 'Bob', type: 'human' } },
    ]);
    // and a rebuild folds the mixed stream to the row the commands left
    const rebuild = await c.gql(`mutation { rebuildTensionProjection(dryRun: true) { updated inserted deleted } }`);
    expect(rebuild.body.data.rebuildTensionProjection).toEqual({ updated: 0, inserted: 0, deleted: 0 });
  });
});
