// The projection stays the fold of its stream: mixed workloads, concurrent writers, rebuilds (also racing commands).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldPast } from '../../../server/domain/tension.past.js';
import type { RecordedTensionEvent } from '../../../server/domain/tension.types.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { insertUser, newActor, newTension, projectionRow, streamOf } from '../../support/tensions.js';
import { onPostgres } from '../../support/database.js';
import { holdTensionRow } from '../../support/row-lock.js';

let app: TestApp;
let c: ReturnType<typeof client>;
let orgA: string;
let orgB: string;
let lead: string;

beforeAll(async () => {
  app = await startTestApp();
  c = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*', 'projections:rebuild'] })).key);
  orgA = await newActor(c, 'Org A');
  orgB = await newActor(c, 'Org B');
  lead = await insertUser(app, { name: 'Lead' });
});
afterAll(async () => {
  await app?.close();
});

async function foldOf(id: string) {
  const events = await streamOf(app, id);
  return foldPast(events.map((e) => ({ type: e.type, data: e.data, version: e.version, occurredAt: new Date(e.occurred_at) }) as RecordedTensionEvent)).state;
}

function rowAsState(row: any) {
  return (
    row && {
      id: row.id,
      name: row.name,
      currentContext: row.current_context,
      potentialFuture: row.potential_future,
      score: Number(row.score),
      state: row.state,
      actorId: row.actor_id,
      leadUserId: row.lead_user_id,
      version: row.version,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
    }
  );
}

async function allTensionIds(): Promise<string[]> {
  const rows: { stream_id: string }[] = await app.em().execute(`select distinct stream_id from domain_events where stream_type = 'tension'`);
  return rows.map((r: { stream_id: string }) => r.stream_id);
}

const REBUILD = `mutation($dryRun: Boolean) { rebuildTensionProjection(dryRun: $dryRun) { streams events inserted updated deleted unchanged durationMs dryRun } }`;

/** A seeded mix of every command over a few tensions. */
async function mixedWorkload(seed: number, count: number) {
  let s = seed;
  const rand = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push((await newTension(c, { name: `W${seed}-${i}`, actorId: orgA, score: 1 + i })).id);
  const moves: ((id: string) => Promise<unknown>)[] = [
    (id) => c.post(`/tensions/${id}/rename`, { name: `n${Math.floor(rand() * 5)}` }),
    (id) => c.post(`/tensions/${id}/rescore`, { score: 1 + Math.floor(rand() * 10) }),
    (id) => c.post(`/tensions/${id}/revise`, rand() < 0.5 ? { currentContext: `c${rand()}` } : { potentialFuture: null }),
    (id) => c.post(`/tensions/${id}/lead`, { leadUserId: rand() < 0.5 ? lead : null }),
    (id) => c.post(`/tensions/${id}/reassign`, { actorId: rand() < 0.5 ? orgA : orgB }),
    (id) => c.post(`/tensions/${id}/resolve`),
    (id) => c.post(`/tensions/${id}/drop`),
    (id) => c.post(`/tensions/${id}/reopen`),
    (id) => c.post(`/tensions/${id}/revive`),
  ];
  for (let i = 0; i < count; i++) await moves[Math.floor(rand() * moves.length)](ids[Math.floor(rand() * ids.length)]);
  await c.del(`/tensions/${ids[0]}`);
  return ids;
}

describe('projection = fold of the stream', () => {
  it('holds for every tension after a mixed workload', async () => {
    const ids = await mixedWorkload(7, 60);
    for (const id of ids) expect(rowAsState(await projectionRow(app, id))).toEqual(await foldOf(id));
    expect(await projectionRow(app, ids[0])).toBeNull();
  });
});

describe('concurrent writers', () => {
  it('20 writers on one tension stating versions 1–3: at most one wins per version, the rest 409, versions contiguous', async () => {
    const t = await newTension(c, { name: 'Hot', actorId: orgA });
    const expected = (i: number) => 1 + (i % 3);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => c.post(`/tensions/${t.id}/rename`, { name: `writer ${i}`, expectedVersion: expected(i) })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.body).toMatchObject({ code: 'version_conflict', currentVersion: expect.any(Number) });
    // a writer that won appended right after the version it stated, so each stated version has at most one winner
    answers.forEach((a, i) => a.status === 200 && expect(a.body.event.version, `writer ${i}`).toBe(expected(i) + 1));
    const appended = answers.filter((a) => a.status === 200 && a.body.event).length;
    expect(appended).toBeGreaterThanOrEqual(1);
    expect(appended).toBeLessThanOrEqual(3);
    const stream = await streamOf(app, t.id);
    expect(stream.map((e) => e.version)).toEqual(Array.from({ length: 1 + appended }, (_, i) => i + 1));
    const row = await projectionRow(app, t.id);
    expect(row.version).toBe(1 + appended);
    expect(rowAsState(row)).toEqual(await foldOf(t.id));
  });

  it('20 writers without expectedVersion, overlapping: conflicts surface as 409, never lost updates', async () => {
    const t = await newTension(c, { name: 'Hot2', actorId: orgA });
    // On PostgreSQL the row is held while the commands arrive, so they all read the same version and
    // queue behind one another; then only the first can append, and the rest must answer 409 (the
    // server does not silently retry). The embedded database runs one transaction at a time: no overlap.
    const held = onPostgres ? await holdTensionRow(app.db.url!, t.id) : null;
    const sent = Promise.all(Array.from({ length: 20 }, (_, i) => c.post(`/tensions/${t.id}/rescore`, { score: 1 + (i % 10) })));
    if (held) {
      await held.waitForWaiters(2);
      await held.release();
    }
    const answers = await sent;
    expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    if (held) {
      const conflicts = answers.filter((a) => a.status === 409);
      expect(conflicts.length, 'writers that read the same version must conflict').toBeGreaterThan(0);
      for (const a of conflicts) expect(a.body).toMatchObject({ code: 'version_conflict', currentVersion: expect.any(Number) });
      expect(conflicts.every((a) => a.body.expectedVersion === undefined)).toBe(true);
    }
    const appended = answers.filter((a) => a.status === 200 && a.body.event).length;
    expect((await streamOf(app, t.id)).length).toBe(1 + appended);
    expect(rowAsState(await projectionRow(app, t.id))).toEqual(await foldOf(t.id));
  });
});

describe('rebuild', () => {
  it('changes nothing on a consistent database (dry run and real)', async () => {
    await mixedWorkload(11, 40);
    const streams = (await allTensionIds()).length;
    const [{ n: events }] = await app.em().execute(`select count(*)::int as n from domain_events where stream_type = 'tension'`);
    for (const dryRun of [true, false]) {
      const res = await c.gql(REBUILD, { dryRun });
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.rebuildTensionProjection).toMatchObject({ streams, events, inserted: 0, updated: 0, deleted: 0, dryRun });
    }
  });

  it('repairs a damaged projection; a dry run only reports', async () => {
    const a = await newTension(c, { name: 'Damaged', actorId: orgA });
    const b = await newTension(c, { name: 'Lost', actorId: orgA });
    const em = app.em();
    await em.execute(`update tensions set score = 1, name = 'tampered' where id = ?`, [a.id]);
    await em.execute(`delete from tensions where id = ?`, [b.id]);
    const orphan = randomUUID();
    await em.execute(
      `insert into tensions (id, name, score, state, actor_id, version, created_at, updated_at) values (?, 'orphan', 5, 'alive', ?, 1, now(), now())`,
      [orphan, orgA],
    );
    const dry = (await c.gql(REBUILD, { dryRun: true })).body.data.rebuildTensionProjection;
    expect(dry).toMatchObject({ inserted: 1, updated: 1, deleted: 1 });
    expect((await projectionRow(app, a.id)).name).toBe('tampered');
    const real = (await c.gql(REBUILD, { dryRun: false })).body.data.rebuildTensionProjection;
    expect(real).toMatchObject({ inserted: 1, updated: 1, deleted: 1 });
    expect(rowAsState(await projectionRow(app, a.id))).toEqual(await foldOf(a.id));
    expect(rowAsState(await projectionRow(app, b.id))).toEqual(await foldOf(b.id));
    expect(await projectionRow(app, orphan)).toBeNull();
    expect((await c.gql(REBUILD, {})).body.data.rebuildTensionProjection).toMatchObject({ inserted: 0, updated: 0, deleted: 0 });
  });

  it('racing live commands loses nothing', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await newTension(c, { name: `Race ${i}`, actorId: orgA })).id);
    const commands = Array.from({ length: 30 }, (_, i) => c.post(`/tensions/${ids[i % 5]}/rescore`, { score: 1 + (i % 10) }));
    const rebuilds = [c.gql(REBUILD, { dryRun: false }), c.gql(REBUILD, { dryRun: false })];
    const [answers, reports] = await Promise.all([Promise.all(commands), Promise.all(rebuilds)]);
    expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    for (const r of reports) expect(r.body.errors).toBeUndefined();
    for (const id of ids) {
      const appended = answers.filter((a) => a.status === 200 && a.body.event && a.body.tension.id === id).length;
      expect((await streamOf(app, id)).length).toBe(1 + appended);
      expect(rowAsState(await projectionRow(app, id))).toEqual(await foldOf(id));
    }
    expect((await c.gql(REBUILD, { dryRun: true })).body.data.rebuildTensionProjection).toMatchObject({ inserted: 0, updated: 0, deleted: 0 });
  });

  it('needs projections:rebuild', async () => {
    const other = client(app, (await seedUserWithKey(app, { grants: ['tensions:*'] })).key);
    const res = await other.gql(REBUILD, { dryRun: true });
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

// Last in the file: it leaves projections behind their streams, which the rebuild tests above would count.
describe('a projection behind its stream', () => {
  // The row says version 1 while the stream already holds version 2 (written here behind the projection's
  // back, as a half-restored backup could leave it). A command must write nothing, row included, and
  // answer 409 with the stream's head: the command without a transaction (rescore) and the one with (reassign).
  it.each([
    ['rescore', (id: string) => c.post(`/tensions/${id}/rescore`, { score: 9 })],
    ['reassign', (id: string) => c.post(`/tensions/${id}/reassign`, { actorId: orgB })],
  ])('%s answers 409 and writes nothing', async (_name, send) => {
    const t = await newTension(c, { name: 'Behind', actorId: orgA, score: 3 });
    await app.em().execute(
      `insert into domain_events (id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
       values (?, 'tension', ?, 2, 'TensionRenamed', 1, ?::jsonb, '{}'::jsonb, now())`,
      [randomUUID(), t.id, JSON.stringify({ name: 'Written behind', previousName: 'Behind' })],
    );
    const before = await projectionRow(app, t.id);
    const answer = await send(t.id);
    expect(answer.status, JSON.stringify(answer.body)).toBe(409);
    expect(answer.body).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    expect(await projectionRow(app, t.id)).toEqual(before);
    expect((await streamOf(app, t.id)).map((e) => e.version)).toEqual([1, 2]);
  });
});
