// Snapshots of the past fold (issue 34): an as-of read that starts from a snapshot answers exactly what a fold
// of the whole stream answers, at every version, and a snapshot written by another fold is never read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOLD_DIGEST } from '../../../server/persistence/tension-snapshots.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { insertUser, newActor, newTension } from '../../support/tensions.js';

let app: TestApp;
let c: ReturnType<typeof client>;
let orgA: string;
let orgB: string;
let alice: string;
let bob: string;
let now = new Date('2026-04-01T09:00:00.000Z');
const tick = () => (now = new Date(now.getTime() + 1000));
const EVERY = 5;

beforeAll(async () => {
  app = await startTestApp({ rateLimitPerMinute: 0 }, { clock: () => now, pastSnapshotEvery: EVERY });
  const seeded = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*'] });
  c = client(app, seeded.key);
  orgA = await newActor(c, 'Org A');
  orgB = await newActor(c, 'Org B');
  alice = await insertUser(app, { name: 'Alice' });
  bob = await insertUser(app, { name: 'Bob' });
});
afterAll(async () => {
  await app?.close();
});

/** Every version's as-of read, by version, with snapshots off or on (the app's own deps, read per request). */
async function readAll(id: string, versions: number[], every: number) {
  app.deps.pastSnapshotEvery = every;
  const out = new Map<number, { status: number; body: unknown }>();
  for (const v of versions) {
    const res = await c.get(`/tensions/${id}?asOfVersion=${v}`);
    const { requestId: _, ...body } = res.body as { requestId?: string }; // a refusal names its own request
    out.set(v, { status: res.status, body });
  }
  app.deps.pastSnapshotEvery = EVERY;
  return out;
}

const snapshotVersions = async (id: string) =>
  (await app.em().execute<{ version: number; fold: string }[]>('select version, fold from tension_snapshots where stream_id = ? order by version', [id])).map(
    (r) => [r.version, r.fold],
  );

describe('as-of reads through snapshots', () => {
  it('equal the fold of the whole stream at every version of a long stream, read in any order', async () => {
    tick();
    const t = await newTension(c, { name: 'Long', actorId: orgA, score: 1 });
    const verbs: [string, unknown][] = [
      ['rename', { name: 'Long 1' }],
      ['lead', { leadUserId: alice }],
      ['rescore', { score: 4 }],
      ['reassign', { actorId: orgB }],
      ['revise', { currentContext: 'ctx', potentialFuture: 'fut' }],
      ['resolve', undefined],
      ['reopen', undefined],
      ['lead', { leadUserId: bob }],
      ['drop', undefined],
      ['revive', undefined],
      ['lead', { leadUserId: null }],
      ['reassign', { actorId: orgA }],
    ];
    for (let i = 0; i < 3 * verbs.length; i++) {
      const [verb, body] = verbs[i % verbs.length];
      tick();
      const res = await c.post(`/tensions/${t.id}/${verb}`, verb === 'rename' ? { name: `Long ${i}` } : verb === 'rescore' ? { score: 1 + (i % 10) } : body);
      expect(res.status, `${verb} → ${JSON.stringify(res.body)}`).toBe(200);
    }
    // names change after the events recorded them: the past keeps the recorded ones, from a snapshot too
    expect((await c.patch(`/actors/${orgB}`, { name: 'Org B renamed' })).status).toBe(200);
    tick();
    expect((await c.del(`/tensions/${t.id}`)).status).toBe(204);
    const head = 3 * verbs.length + 2;
    const versions = Array.from({ length: head + 1 }, (_, i) => i + 1); // one past the head: 404 on both
    const whole = await readAll(t.id, versions, 0);
    expect(await snapshotVersions(t.id)).toEqual([]);

    // newest first: the first read writes every snapshot up to it, the others start from one
    const fromSnapshots = await readAll(t.id, [...versions].reverse(), EVERY);
    const expected = versions.filter((v) => v % EVERY === 0 && v <= head).map((v) => [v, FOLD_DIGEST]);
    expect(await snapshotVersions(t.id)).toEqual(expected);
    for (const v of versions) expect(fromSnapshots.get(v), `version ${v}`).toEqual(whole.get(v));
    // and oldest first, every read starting from a snapshot already written
    const again = await readAll(t.id, versions, EVERY);
    for (const v of versions) expect(again.get(v), `version ${v}`).toEqual(whole.get(v));
    expect(whole.get(head)!.status).toBe(404); // discarded there
    expect(whole.get(head + 1)!.status).toBe(404); // no such version
    expect(whole.get(7)).toMatchObject({ status: 200, body: { actor: { name: 'Org B' }, lead: { name: 'Alice' } } });

    // changes go through the same snapshots
    app.deps.pastSnapshotEvery = 0;
    const changesWhole = await c.get(`/tensions/${t.id}/changes?from=3`);
    app.deps.pastSnapshotEvery = EVERY;
    expect(changesWhole.status).toBe(200);
    expect((await c.get(`/tensions/${t.id}/changes?from=3`)).body).toEqual(changesWhole.body);
  }, 120_000); // ~120 requests: 28 s on the embedded database under a load average of 30

  it('a snapshot another fold wrote (another digest) is never read', async () => {
    tick();
    const t = await newTension(c, { name: 'Truth', actorId: orgA });
    for (let i = 1; i < 2 * EVERY; i++) {
      tick();
      expect((await c.post(`/tensions/${t.id}/rescore`, { score: 1 + i })).status).toBe(200);
    }
    // a stale row at every version, as an older `evolve` might have left it
    const lie = { state: { ...(await c.get(`/tensions/${t.id}`)).body, name: 'Stale fold', createdAt: now.toISOString(), updatedAt: now.toISOString() } };
    for (let v = 1; v <= 2 * EVERY; v++) {
      await app
        .em()
        .execute(`insert into tension_snapshots (stream_id, fold, version, past, occurred_at) values (?, 'an-older-fold', ?, ?::jsonb, ?)`, [
          t.id,
          v,
          JSON.stringify(lie),
          now.toISOString(),
        ]);
    }
    const read = await c.get(`/tensions/${t.id}?asOfVersion=${2 * EVERY}`);
    expect([read.status, read.body.name, read.body.score, read.body.version]).toEqual([200, 'Truth', 2 * EVERY, 2 * EVERY]);
    // the read left its own snapshots beside the stale ones
    expect((await snapshotVersions(t.id)).filter(([, fold]) => fold === FOLD_DIGEST).map(([v]) => v)).toEqual([EVERY, 2 * EVERY]);
    // and reads from them, still not from the stale ones
    expect((await c.get(`/tensions/${t.id}?asOfVersion=${EVERY + 1}`)).body).toMatchObject({ name: 'Truth', score: EVERY + 1, version: EVERY + 1 });
  });
});
