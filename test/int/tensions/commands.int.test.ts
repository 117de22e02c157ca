// Every tension command through REST (and the same paths through GraphQL): events, no-ops, refusals, history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { insertUser, newActor, newTension, projectionRow, streamOf } from '../../support/tensions.js';

let app: TestApp;
let c: ReturnType<typeof client>;
let agentName: string;
let orgA: string;
let orgB: string;
let alice: string;
let gone: string;

beforeAll(async () => {
  app = await startTestApp();
  const agent = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*'] });
  agentName = agent.name;
  c = client(app, agent.key);
  orgA = await newActor(c, 'Org A');
  orgB = await newActor(c, 'Org B');
  alice = await insertUser(app, { name: 'Alice' });
  gone = await insertUser(app, { name: 'Gone', status: 'deactivated' });
});
afterAll(async () => {
  await app?.close();
});

const ZERO = '00000000-0000-4000-8000-000000000000';

describe('sense', () => {
  it('creates an alive tension at version 1 with defaults, actor and lead in the read shape (201)', async () => {
    const res = await c.post('/tensions', { name: '  Supply gap  ', actorId: orgA, leadUserId: alice });
    expect(res.status).toBe(201);
    expect(res.body.tension).toMatchObject({
      name: 'Supply gap',
      currentContext: null,
      potentialFuture: null,
      score: 5,
      state: 'alive',
      version: 1,
      actorId: orgA,
      actor: { id: orgA, name: 'Org A', type: 'organization' },
      leadUserId: alice,
      lead: { id: alice, name: 'Alice', type: 'human' },
    });
    expect(res.body.event).toMatchObject({
      version: 1,
      type: 'TensionSensed',
      summary: 'Tension sensed',
      summaryKey: 'history.sensed',
      summaryParams: { name: 'Supply gap' },
      by: { kind: 'agent', userName: agentName, via: 'rest' },
    });
    expect(res.body.event.data).toMatchObject({ name: 'Supply gap', score: 5, state: 'alive', actorId: orgA, leadUserId: alice });
    const get = await c.get(`/tensions/${res.body.tension.id}`);
    expect(get.body).toEqual(res.body.tension);
  });

  it('validates: name, score type and range, non-UUID ids, unknown keys, lengths in code points', async () => {
    const bad = async (body: unknown, path: string) => {
      const res = await c.post('/tensions', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    };
    await bad({ name: '   ', actorId: orgA }, 'name');
    await bad({ name: 'x'.repeat(201), actorId: orgA }, 'name');
    await bad({ name: 'x', actorId: orgA, score: '8' }, 'score');
    await bad({ name: 'x', actorId: orgA, score: null }, 'score');
    await bad({ name: 'x', actorId: orgA, score: 11 }, 'score');
    await bad({ name: 'x', actorId: orgA, score: 2.5 }, 'score');
    await bad({ name: 'x', actorId: 'not-a-uuid' }, 'actorId');
    await bad({ name: 'x', actorId: orgA, leadUserId: 'nope' }, 'leadUserId');
    await bad({ name: 'x', actorId: orgA, colour: 'red' }, '(root)');
    await bad({ name: 'x', actorId: orgA, currentContext: 'y'.repeat(10_001) }, 'currentContext');
    // 200 emoji are 200 code points (400 UTF-16 units): allowed
    const ok = await c.post('/tensions', { name: '🙂'.repeat(200), actorId: orgA });
    expect(ok.status).toBe(201);
  });

  it('refuses an unknown actor (404 actor_not_found), unknown lead (404 user_not_found), deactivated lead (422)', async () => {
    expect((await c.post('/tensions', { name: 'x', actorId: ZERO })).body.code).toBe('actor_not_found');
    const unknownLead = await c.post('/tensions', { name: 'x', actorId: orgA, leadUserId: ZERO });
    expect([unknownLead.status, unknownLead.body.code]).toEqual([404, 'user_not_found']);
    const deactivated = await c.post('/tensions', { name: 'x', actorId: orgA, leadUserId: gone });
    expect([deactivated.status, deactivated.body.code]).toEqual([422, 'not_applicable']);
  });
});

describe('edits', () => {
  it('rename, rescore, revise, lead, reassign append events with previous values; unchanged input is a no-op', async () => {
    const t = await newTension(c, { name: 'A', actorId: orgA, currentContext: 'now' });
    const step = async (verb: string, body: unknown, type: string | null, version: number) => {
      const res = await c.post(`/tensions/${t.id}/${verb}`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.tension.version).toBe(version);
      if (type === null) expect(res.body.event).toBeNull();
      else expect(res.body.event).toMatchObject({ type, version });
      return res.body;
    };
    expect((await step('rename', { name: 'B' }, 'TensionRenamed', 2)).event.data).toEqual({ name: 'B', previousName: 'A' });
    await step('rename', { name: ' B ' }, null, 2);
    expect((await step('rescore', { score: 8 }, 'TensionRescored', 3)).event.data).toEqual({ score: 8, previousScore: 5 });
    await step('rescore', { score: 8 }, null, 3);
    expect((await step('revise', { potentialFuture: 'later', currentContext: 'now' }, 'TensionContextRevised', 4)).event.data).toEqual({
      potentialFuture: 'later',
      previousPotentialFuture: null,
    });
    await step('revise', { currentContext: 'now' }, null, 4);
    expect((await step('revise', { currentContext: null }, 'TensionContextRevised', 5)).tension.currentContext).toBeNull();
    const led = await step('lead', { leadUserId: alice }, 'TensionLeadAssigned', 6);
    expect(led.event.data).toEqual({ leadUserId: alice, leadName: 'Alice', previousLeadUserId: null, previousLeadName: null });
    expect(led.tension.lead).toEqual({ id: alice, name: 'Alice', type: 'human' });
    await step('lead', { leadUserId: alice }, null, 6);
    expect((await step('lead', { leadUserId: null }, 'TensionLeadUnassigned', 7)).event.data).toEqual({ previousLeadUserId: alice });
    await step('lead', { leadUserId: null }, null, 7);
    const moved = await step('reassign', { actorId: orgB }, 'TensionReassigned', 8);
    expect(moved.event.data).toEqual({ actorId: orgB, actorName: 'Org B', previousActorId: orgA, previousActorName: 'Org A' });
    expect(moved.tension.actor).toEqual({ id: orgB, name: 'Org B', type: 'organization' });
    await step('reassign', { actorId: orgB }, null, 8);
    expect((await streamOf(app, t.id)).map((e: { version: number }) => e.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('refuses bad edit input with 400 and bad references with 404/422', async () => {
    const t = await newTension(c, { name: 'E', actorId: orgA });
    const code = async (verb: string, body: unknown) => {
      const res = await c.post(`/tensions/${t.id}/${verb}`, body);
      return [res.status, res.body.code];
    };
    expect(await code('revise', {})).toEqual([400, 'validation_failed']);
    expect(await code('lead', {})).toEqual([400, 'validation_failed']);
    expect(await code('lead', { leadUserId: 'x' })).toEqual([400, 'validation_failed']);
    expect(await code('rescore', { score: '8' })).toEqual([400, 'validation_failed']);
    expect(await code('rescore', { score: null })).toEqual([400, 'validation_failed']);
    expect(await code('rescore', { score: 0 })).toEqual([400, 'validation_failed']);
    expect(await code('rename', { name: '' })).toEqual([400, 'validation_failed']);
    expect(await code('reassign', { actorId: 'nope' })).toEqual([400, 'validation_failed']);
    expect(await code('resolve', { force: true })).toEqual([400, 'validation_failed']);
    expect(await code('rename', { name: 'x', expectedVersion: -1 })).toEqual([400, 'validation_failed']);
    expect(await code('reassign', { actorId: ZERO })).toEqual([404, 'actor_not_found']);
    expect(await code('lead', { leadUserId: ZERO })).toEqual([404, 'user_not_found']);
    expect(await code('lead', { leadUserId: gone })).toEqual([422, 'not_applicable']);
    expect((await c.get(`/tensions/${t.id}`)).body.version).toBe(1);
  });
});

describe('lifecycle', () => {
  it('follows the transition table: moves, no-ops on the current state, 409 invalid_transition otherwise', async () => {
    const t = await newTension(c, { name: 'L', actorId: orgA });
    const run = async (verb: string, body?: unknown) => {
      const res = await c.post(`/tensions/${t.id}/${verb}`, body);
      return res.status === 200
        ? `${res.body.tension.state}${res.body.event ? '' : ' (noop)'}`
        : `${res.status} ${res.body.code} ${res.body.state}/${res.body.command}`;
    };
    expect(await run('reopen')).toBe('alive (noop)');
    expect(await run('revive', {})).toBe('alive (noop)');
    expect(await run('resolve')).toBe('resolved');
    expect(await run('resolve', {})).toBe('resolved (noop)');
    expect(await run('drop')).toBe('409 invalid_transition resolved/drop');
    expect(await run('revive')).toBe('409 invalid_transition resolved/revive');
    expect(await run('rename', { name: 'edit while resolved' })).toBe('resolved');
    expect(await run('reopen')).toBe('alive');
    expect(await run('drop')).toBe('stale');
    expect(await run('drop')).toBe('stale (noop)');
    expect(await run('resolve')).toBe('409 invalid_transition stale/resolve');
    expect(await run('reopen')).toBe('409 invalid_transition stale/reopen');
    expect(await run('rescore', { score: 2 })).toBe('stale');
    expect(await run('revive')).toBe('alive');
    const types = (await streamOf(app, t.id)).map((e: { type: string }) => e.type);
    expect(types).toEqual(['TensionSensed', 'TensionResolved', 'TensionRenamed', 'TensionReopened', 'TensionDropped', 'TensionRescored', 'TensionRevived']);
  });

  it('accepts no body or an empty object for lifecycle commands', async () => {
    const t = await newTension(c, { name: 'Bodies', actorId: orgA });
    expect((await c.post(`/tensions/${t.id}/resolve`)).status).toBe(200);
    expect((await c.post(`/tensions/${t.id}/reopen`, {})).status).toBe(200);
  });

  it('discards from any state (204): the row goes, reads and commands answer 404, history stays readable', async () => {
    for (const setup of [[], ['resolve'], ['drop']]) {
      const t = await newTension(c, { name: 'D', actorId: orgA });
      for (const verb of setup) await c.post(`/tensions/${t.id}/${verb}`);
      const del = await c.del(`/tensions/${t.id}`);
      expect(del.status).toBe(204);
      expect(await projectionRow(app, t.id)).toBeNull();
      expect((await c.get(`/tensions/${t.id}`)).status).toBe(404);
      expect((await c.post(`/tensions/${t.id}/rename`, { name: 'z' })).body.code).toBe('not_found');
      expect((await c.del(`/tensions/${t.id}`)).status).toBe(404);
      const history = await c.get(`/tensions/${t.id}/history`);
      expect(history.status).toBe(200);
      expect(history.body.data[0]).toMatchObject({ type: 'TensionDiscarded', summary: 'Discarded', summaryKey: 'history.discarded' });
    }
  });

  it('answers 404 for unknown ids and for path ids that are not UUIDs', async () => {
    expect((await c.get(`/tensions/${ZERO}`)).body.code).toBe('not_found');
    expect((await c.get('/tensions/not-a-uuid')).status).toBe(404);
    expect((await c.post('/tensions/not-a-uuid/resolve')).status).toBe(404);
    expect((await c.del('/tensions/not-a-uuid')).status).toBe(404);
    expect((await c.get(`/tensions/${ZERO}/history`)).status).toBe(404);
    expect((await c.get('/tensions/nope/history')).status).toBe(404);
  });
});

describe('expectedVersion', () => {
  it('refuses a stale expectedVersion with 409 version_conflict and writes nothing', async () => {
    const t = await newTension(c, { name: 'V', actorId: orgA });
    const ok = await c.post(`/tensions/${t.id}/rename`, { name: 'V2', expectedVersion: 1 });
    expect(ok.body.tension.version).toBe(2);
    const stale = await c.post(`/tensions/${t.id}/rename`, { name: 'V3', expectedVersion: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'version_conflict', currentVersion: 2, expectedVersion: 1 });
    const del = await c.del(`/tensions/${t.id}?expectedVersion=1`);
    expect([del.status, del.body.code, del.body.currentVersion]).toEqual([409, 'version_conflict', 2]);
    expect((await c.del(`/tensions/${t.id}?expectedVersion=abc`)).status).toBe(400);
    expect((await streamOf(app, t.id)).length).toBe(2);
    expect((await c.del(`/tensions/${t.id}?expectedVersion=2`)).status).toBe(204);
  });
});

describe('permissions', () => {
  it('refuses callers without the permission with 403 forbidden naming it', async () => {
    const reader = client(app, (await seedUserWithKey(app, { grants: ['tensions:read'] })).key);
    const writer = client(app, (await seedUserWithKey(app, { grants: ['tensions:read', 'tensions:write'] })).key);
    const t = await newTension(c, { name: 'P', actorId: orgA });
    const sense = await reader.post('/tensions', { name: 'x', actorId: orgA });
    expect([sense.status, sense.body.code, sense.body.missingPermission]).toEqual([403, 'forbidden', 'tensions:write']);
    expect((await reader.post(`/tensions/${t.id}/resolve`)).body.missingPermission).toBe('tensions:write');
    const del = await writer.del(`/tensions/${t.id}`);
    expect([del.status, del.body.missingPermission]).toEqual([403, 'tensions:delete']);
    const none = client(app, (await seedUserWithKey(app, { grants: ['actors:read'] })).key);
    expect((await none.get('/tensions')).body.missingPermission).toBe('tensions:read');
    expect((await none.get(`/tensions/${t.id}/history`)).body.missingPermission).toBe('tensions:read');
  });
});

describe('history', () => {
  it('renders every event type newest first with exact summaries, keys, params and author', async () => {
    const t = await newTension(c, { name: 'A', actorId: orgA });
    await c.post(`/tensions/${t.id}/rename`, { name: 'B' });
    await c.post(`/tensions/${t.id}/rescore`, { score: 8 });
    await c.post(`/tensions/${t.id}/rescore`, { score: 3 });
    await c.post(`/tensions/${t.id}/revise`, { currentContext: 'c' });
    await c.post(`/tensions/${t.id}/revise`, { potentialFuture: 'f' });
    await c.post(`/tensions/${t.id}/revise`, { currentContext: 'c2', potentialFuture: 'f2' });
    await c.post(`/tensions/${t.id}/lead`, { leadUserId: alice });
    await c.post(`/tensions/${t.id}/lead`, { leadUserId: null });
    await c.post(`/tensions/${t.id}/reassign`, { actorId: orgB });
    await c.post(`/tensions/${t.id}/resolve`);
    await c.post(`/tensions/${t.id}/reopen`);
    await c.post(`/tensions/${t.id}/drop`);
    await c.post(`/tensions/${t.id}/revive`);
    await c.del(`/tensions/${t.id}`);
    const res = await c.get(`/tensions/${t.id}/history?limit=100`);
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    const rows = res.body.data.map((e: any) => [e.version, e.type, e.summary, e.summaryKey, e.summaryParams]);
    expect(rows).toEqual([
      [15, 'TensionDiscarded', 'Discarded', 'history.discarded', {}],
      [14, 'TensionRevived', 'Revived', 'history.revived', {}],
      [13, 'TensionDropped', 'Dropped as stale', 'history.dropped', {}],
      [12, 'TensionReopened', 'Reopened', 'history.reopened', {}],
      [11, 'TensionResolved', 'Resolved', 'history.resolved', {}],
      [
        10,
        'TensionReassigned',
        'Reassigned from Org A to Org B',
        'history.reassigned',
        { fromActorId: orgA, fromActorName: 'Org A', toActorId: orgB, toActorName: 'Org B' },
      ],
      [9, 'TensionLeadUnassigned', 'Lead unassigned', 'history.leadUnassigned', {}],
      [8, 'TensionLeadAssigned', 'Lead assigned to Alice', 'history.leadAssigned', { leadUserId: alice, leadName: 'Alice' }],
      [7, 'TensionContextRevised', 'Revised current context and potential future', 'history.contextRevised.both', {}],
      [6, 'TensionContextRevised', 'Revised potential future', 'history.contextRevised.future', {}],
      [5, 'TensionContextRevised', 'Revised current context', 'history.contextRevised.current', {}],
      [4, 'TensionRescored', 'Score lowered from 8 to 3', 'history.rescored.lowered', { from: 8, to: 3 }],
      [3, 'TensionRescored', 'Score raised from 5 to 8', 'history.rescored.raised', { from: 5, to: 8 }],
      [2, 'TensionRenamed', 'Renamed from "A" to "B"', 'history.renamed', { from: 'A', to: 'B' }],
      [1, 'TensionSensed', 'Tension sensed', 'history.sensed', { name: 'A' }],
    ]);
    expect(res.body.data[0].by).toEqual({ kind: 'agent', userId: expect.any(String), userName: agentName, apiKeyName: `${agentName} key`, via: 'rest' });
    expect(new Date(res.body.data[0].occurredAt).toISOString()).toBe(res.body.data[0].occurredAt);
    // paging
    const first = await c.get(`/tensions/${t.id}/history?limit=6`);
    expect(first.body.data.map((e: any) => e.version)).toEqual([15, 14, 13, 12, 11, 10]);
    const second = await c.get(`/tensions/${t.id}/history?limit=6&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((e: any) => e.version)).toEqual([9, 8, 7, 6, 5, 4]);
    const third = await c.get(`/tensions/${t.id}/history?limit=6&cursor=${second.body.nextCursor}`);
    expect(third.body.data.map((e: any) => e.version)).toEqual([3, 2, 1]);
    expect(third.body.nextCursor).toBeNull();
    expect((await c.get(`/tensions/${t.id}/history?limit=0`)).status).toBe(400);
    expect((await c.get(`/tensions/${t.id}/history?limit=101`)).status).toBe(400);
    expect((await c.get(`/tensions/${t.id}/history?cursor=garbage`)).status).toBe(400);
  });

  it('records correlation ids and the face in event metadata', async () => {
    const res = await fetch(`${app.url}/api/v1/tensions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${(await seedUserWithKey(app, { grants: ['tensions:*'] })).key}`,
        'x-correlation-id': 'corr-1',
        'x-request-id': 'req-1',
      },
      body: JSON.stringify({ name: 'traced', actorId: orgA }),
    });
    const body = await res.json();
    const [row] = await app.em().execute(`select metadata from domain_events where stream_id = ?`, [body.tension.id]);
    expect(row.metadata).toMatchObject({
      actorKind: 'agent',
      via: 'rest',
      requestId: 'req-1',
      correlationId: 'corr-1',
      causationId: null,
      apiKeyId: expect.any(String),
    });
  });

  it('records a correlation id of at most 128 characters, on each face and lane alike, and ignores a longer one', async () => {
    const key = (await seedUserWithKey(app, { grants: ['tensions:*'] })).key;
    const id = (await newTension(client(app, key), { actorId: orgA, name: 'Correlated', currentContext: 'now' })).id;
    const rescore = `mutation($id: ID!, $score: Int!) { rescoreTension(id: $id, input: { score: $score }) { event { version } } }`;
    // the command lane, and Express (a query string makes the lane step aside), for REST and for GraphQL
    const ways: [string, (score: number) => [string, string]][] = [
      ['REST, lane', (score) => [`/api/v1/tensions/${id}/rescore`, JSON.stringify({ score })]],
      ['REST, Express', (score) => [`/api/v1/tensions/${id}/rescore?via=express`, JSON.stringify({ score })]],
      ['GraphQL, lane', (score) => ['/graphql', JSON.stringify({ query: rescore, variables: { id, score } })]],
      ['GraphQL, Express', (score) => ['/graphql?via=express', JSON.stringify({ query: rescore, variables: { id, score } })]],
    ];
    let score = 1;
    for (const [way, request] of ways) {
      for (const [length, recorded] of [
        [128, true],
        [129, false],
      ] as const) {
        const correlationId = 'c'.repeat(length);
        const [path, body] = request(++score);
        const res = await fetch(`${app.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'x-correlation-id': correlationId },
          body,
        });
        expect(res.status, `${way}, ${length}: ${await res.clone().text()}`).toBe(200);
        const [row] = await app.em().execute(`select metadata from domain_events where stream_id = ? order by version desc limit 1`, [id]);
        expect(row.metadata.correlationId ?? null, `${way}, ${length}`).toBe(recorded ? correlationId : null);
      }
    }
  });
});
