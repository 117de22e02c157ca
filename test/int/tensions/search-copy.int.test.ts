// The searchable texts' copy (`tension_search`, migration 20261126120000): `q` finds exactly what the tensions
// say now through every command and the rebuild, and only a command that changes a text writes the copy, so a
// rescore re-indexes no trigram.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { newActor, newTension } from '../../support/tensions.js';

let app: TestApp;
let c: ReturnType<typeof client>;
let actorId: string;

beforeAll(async () => {
  app = await startTestApp();
  c = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*', 'projections:rebuild'] })).key);
  actorId = await newActor(c, 'Search org');
});
afterAll(async () => {
  await app?.close();
});

const found = async (q: string) => (await c.get(`/tensions?q=${encodeURIComponent(q)}&limit=100`)).body.data.map((t: { id: string }) => t.id);

/** The copy's row version (`xmin`): it moves exactly when the row is written. */
async function copyXmin(id: string): Promise<string | null> {
  const [row] = await app.em().execute<{ x: string }[]>('select xmin::text as x from tension_search where id = ?', [id]);
  return row?.x ?? null;
}

/** Rows where the copy and the projection disagree (a text, or a row on one side only). */
async function drift(): Promise<number> {
  const [{ n }] = await app.em().execute<{ n: number }[]>(
    `select count(*)::int as n from tensions t full join tension_search s on s.id = t.id
     where t.id is null or s.id is null or t.name <> s.name
        or t.current_context is distinct from s.current_context or t.potential_future is distinct from s.potential_future`,
  );
  return n;
}

describe('search through the texts copy', () => {
  it('finds what sense, rename and revise wrote, never what they replaced; a discarded tension is gone', async () => {
    const t = await newTension(c, { name: 'Marigold shortage', actorId, currentContext: 'Zinnia beds empty', potentialFuture: 'Hollyhock rows' });
    for (const q of ['MARIGOLD', 'zinnia', 'hollyhock']) expect(await found(q)).toEqual([t.id]);
    expect((await c.post(`/tensions/${t.id}/rename`, { name: 'Begonia shortage' })).status).toBe(200);
    expect(await found('marigold')).toEqual([]);
    expect(await found('begonia')).toEqual([t.id]);
    expect((await c.post(`/tensions/${t.id}/revise`, { currentContext: 'Dahlia beds empty', potentialFuture: null })).status).toBe(200);
    expect(await found('zinnia')).toEqual([]);
    expect(await found('hollyhock')).toEqual([]);
    expect(await found('dahlia')).toEqual([t.id]);
    expect(await drift()).toBe(0);
    expect((await c.del(`/tensions/${t.id}`)).status).toBe(204);
    expect(await found('begonia')).toEqual([]);
    expect(await copyXmin(t.id)).toBeNull();
  });

  it('a rescore or a lifecycle command leaves the copy unwritten; a rename writes it', async () => {
    const t = await newTension(c, { name: 'Peony glut', actorId, currentContext: 'Too many peonies' });
    const before = await copyXmin(t.id);
    expect(before).not.toBeNull();
    expect((await c.post(`/tensions/${t.id}/rescore`, { score: 2 })).status).toBe(200);
    expect((await c.post(`/tensions/${t.id}/rescore`, { score: 10 })).status).toBe(200);
    expect((await c.post(`/tensions/${t.id}/resolve`)).status).toBe(200);
    expect(await copyXmin(t.id)).toBe(before);
    expect((await c.post(`/tensions/${t.id}/reopen`)).status).toBe(200);
    expect((await c.post(`/tensions/${t.id}/rename`, { name: 'Peony glut, renamed' })).status).toBe(200);
    expect(await copyXmin(t.id)).not.toBe(before);
    expect(await found('peonies')).toEqual([t.id]);
  });

  it('the rebuild restores the copy with the rows it inserts and updates', async () => {
    const a = await newTension(c, { name: 'Lupin drift', actorId });
    const b = await newTension(c, { name: 'Aster loss', actorId, potentialFuture: 'Asters back' });
    await app.em().execute(`update tensions set name = 'tampered' where id = ?`, [a.id]);
    await app.em().execute('delete from tensions where id = ?', [b.id]);
    expect(await found('lupin')).toEqual([]);
    expect(await found('asters')).toEqual([]);
    const res = await c.gql('mutation { rebuildTensionProjection(dryRun: false) { inserted updated } }');
    expect(res.body.data.rebuildTensionProjection).toMatchObject({ inserted: 1, updated: 1 });
    expect(await found('lupin')).toEqual([a.id]);
    expect(await found('asters')).toEqual([b.id]);
    expect(await drift()).toBe(0);
  });
});
