// Actors through REST and GraphQL, and actor deletion: one TensionDiscarded per tension, all or nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { newActor, newTension, projectionRow, streamOf } from '../../support/tensions.js';

let app: TestApp;
let c: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp();
  c = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*'] })).key);
});
afterAll(async () => {
  await app?.close();
});

describe('actors', () => {
  it('creates, reads, renames and lists actors with tensionCount', async () => {
    const created = await c.post('/actors', { name: '  Acme  ', type: 'organization' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Acme', type: 'organization', tensionCount: 0 });
    const id = created.body.id;
    await newTension(c, { name: 'T', actorId: id });
    expect((await c.get(`/actors/${id}`)).body).toMatchObject({ id, name: 'Acme', tensionCount: 1 });
    const renamed = await c.patch(`/actors/${id}`, { name: 'Acme Corp' });
    expect(renamed.body.name).toBe('Acme Corp');
    const gql = await c.gql(`query($id: ID!) { actor(id: $id) { name type tensionCount createdAt } }`, { id });
    expect(gql.body.data.actor).toMatchObject({ name: 'Acme Corp', type: 'organization', tensionCount: 1 });
  });

  it('validates input and answers 404 for unknown or malformed ids', async () => {
    for (const body of [
      { name: '', type: 'organization' },
      { name: 'x', type: 'robot' },
      { name: 'x'.repeat(201), type: 'agent' },
      { name: 'x' },
      { name: 'x', type: 'agent', extra: 1 },
    ]) {
      expect((await c.post('/actors', body)).status).toBe(400);
    }
    // each field error carries a stable code and its figures, so the admin app says it in the operator's language
    const errorsOf = async (body: object) => (await c.post('/actors', body)).body.errors.map(({ path, code, params }: any) => ({ path, code, params }));
    expect(await errorsOf({ name: 'x'.repeat(201), type: 'agent' })).toEqual([{ path: 'name', code: 'too_long', params: { max: 200 } }]);
    expect(await errorsOf({ name: '', type: 'agent' })).toEqual([{ path: 'name', code: 'too_short', params: { min: 1 } }]);
    expect(await errorsOf({ name: 'x' })).toEqual([{ path: 'type', code: 'required', params: {} }]);
    expect(await errorsOf({ name: 'x', type: 'robot' })).toMatchObject([
      { path: 'type', code: 'invalid_value', params: { values: ['organization', 'individual', 'virtual', 'agent'] } },
    ]);
    expect(await errorsOf({ name: 'x', type: 'agent', extra: 1 })).toEqual([{ path: '(root)', code: 'unknown_field', params: { keys: ['extra'] } }]);
    expect(await errorsOf({ name: 7, type: 'agent' })).toEqual([{ path: 'name', code: 'invalid_type', params: { expected: 'string' } }]);
    const gql = await c.gql(`mutation($input: CreateActorInput!) { createActor(input: $input) { id } }`, { input: { name: 'x'.repeat(201), type: 'agent' } });
    expect(gql.body.errors[0].extensions.errors).toMatchObject([{ code: 'too_long', params: { max: 200 } }]);
    expect((await c.patch('/actors/00000000-0000-4000-8000-000000000000', { name: 'x' })).status).toBe(404);
    expect((await c.get('/actors/nope')).status).toBe(404);
    expect((await c.del('/actors/nope')).status).toBe(404);
    expect((await c.del('/actors/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('lists by name with type and q filters and cursor paging', async () => {
    for (const [name, type] of [
      ['zeta', 'virtual'],
      ['Eta', 'individual'],
      ['theta', 'individual'],
      ['Iota', 'agent'],
    ])
      await newActor(c, name, type);
    const all = (await c.get('/actors?limit=100')).body.data.map((a: { name: string }) => a.name);
    expect(all).toEqual([...all].sort((a: string, b: string) => a.toLowerCase().localeCompare(b.toLowerCase())));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await c.get(`/actors?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...res.body.data.map((a: { name: string }) => a.name));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
    expect((await c.get('/actors?type=individual')).body.data.map((a: { name: string }) => a.name)).toEqual(['Eta', 'theta']);
    expect((await c.get('/actors?q=ETA')).body.data.map((a: { name: string }) => a.name)).toEqual(['Eta', 'theta', 'zeta']);
    expect((await c.get('/actors?type=robot')).status).toBe(400);
    // the admin app's pickers search by name: a search longer than any name is bad input, not a 5xx
    const long = await c.get(`/actors?q=${'x'.repeat(201)}`);
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'q', code: 'too_long' }] });
    expect((await c.gql(`{ actors(q: "${'x'.repeat(201)}") { data { id } } }`)).body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect((await c.get('/actors?cursor=zzz')).status).toBe(400);
    const page = await c.gql(`{ actors(type: individual, limit: 1) { data { name } nextCursor } }`);
    expect(page.body.data.actors.data).toEqual([{ name: 'Eta' }]);
  });

  it('needs actors:read / write / delete', async () => {
    const reader = client(app, (await seedUserWithKey(app, { grants: ['actors:read'] })).key);
    const id = await newActor(c, 'Guarded');
    expect((await reader.get(`/actors/${id}`)).status).toBe(200);
    expect((await reader.post('/actors', { name: 'x', type: 'agent' })).body).toMatchObject({ code: 'forbidden', missingPermission: 'actors:write' });
    expect((await reader.del(`/actors/${id}`)).body).toMatchObject({ code: 'forbidden', missingPermission: 'actors:delete' });
  });
});

describe('actor deletion', () => {
  it('discards every tension of the actor (one TensionDiscarded each), unlinks agents, deletes the actor (204)', async () => {
    const doomed = await newActor(c, 'Doomed', 'agent');
    const other = await newActor(c, 'Other');
    const mine = [await newTension(c, { name: 'm1', actorId: doomed }), await newTension(c, { name: 'm2', actorId: doomed })];
    await c.post(`/tensions/${mine[1].id}/resolve`);
    const theirs = await newTension(c, { name: 'o1', actorId: other });
    const agentId = (await seedUserWithKey(app, { type: 'agent', grants: [] })).userId;
    // Linked by SQL: the test needs an agent with a key of its own (seeded) linked to an actor made here.
    await app.em().execute('update users set linked_actor_id = ? where id = ?', [doomed, agentId]);

    // actors:delete alone covers the discards it causes
    const deleter = client(app, (await seedUserWithKey(app, { grants: ['actors:delete'] })).key);
    const res = await deleter.del(`/actors/${doomed}`);
    expect(res.status).toBe(204);
    for (const t of mine) {
      expect(await projectionRow(app, t.id)).toBeNull();
      const stream = await streamOf(app, t.id);
      expect(stream.filter((e) => e.type === 'TensionDiscarded')).toHaveLength(1);
      expect(stream[stream.length - 1].type).toBe('TensionDiscarded');
    }
    expect((await projectionRow(app, theirs.id)).version).toBe(1);
    expect((await c.get(`/actors/${doomed}`)).status).toBe(404);
    const [agent] = await app.em().execute('select linked_actor_id from users where id = ?', [agentId]);
    expect(agent.linked_actor_id).toBeNull();
  });

  it('is all or nothing: a failure midway leaves every tension, the actor and the event store unchanged', async () => {
    const actor = await newActor(c, 'Fragile');
    const tensions = [];
    for (let i = 0; i < 3; i++) tensions.push(await newTension(c, { name: `f${i}`, actorId: actor }));
    const victim = [...tensions].sort((a, b) => a.id.localeCompare(b.id))[1]; // discarded second
    const em = app.em();
    await em.execute(`create function fail_one_discard() returns trigger language plpgsql as $$
      begin
        if old.id = '${victim.id}'::uuid then raise exception 'injected failure'; end if;
        return old;
      end $$`);
    await em.execute('create trigger fail_one_discard before delete on tensions for each row execute function fail_one_discard()');
    const [{ n: before }] = await em.execute('select count(*)::int as n from domain_events');
    try {
      const res = await c.del(`/actors/${actor}`);
      expect(res.status).toBe(500);
      expect(Object.keys(res.body).sort()).toEqual(['code', 'requestId', 'status', 'title', 'type']);
    } finally {
      await em.execute('drop trigger fail_one_discard on tensions');
      await em.execute('drop function fail_one_discard()');
    }
    const [{ n: after }] = await em.execute('select count(*)::int as n from domain_events');
    expect(after).toBe(before);
    for (const t of tensions) expect((await projectionRow(app, t.id)).version).toBe(1);
    expect((await c.get(`/actors/${actor}`)).body.tensionCount).toBe(3);
    // and once the failure is gone, the same deletion goes through (GraphQL this time)
    const ok = await c.gql(`mutation($id: ID!) { deleteActor(id: $id) }`, { id: actor });
    expect(ok.body.data.deleteActor).toBe(true);
    for (const t of tensions) expect(await projectionRow(app, t.id)).toBeNull();
  });
});
