// A rebuild of many streams never stops writers: commands keep answering while it runs, it repairs
// what is damaged, and it leaves every row at its stream's fold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldPast } from '../../../server/domain/tension.past.js';
import type { RecordedTensionEvent } from '../../../server/domain/tension.types.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { onPostgres } from '../../support/database.js';
import { newActor, newTension, projectionRow, streamOf } from '../../support/tensions.js';

// The figure on PostgreSQL. The embedded database is WebAssembly and runs one transaction at
// a time, so a smaller set there, but enough batches of the rebuild (5,000 events each) to interleave with
// commands: a writer gets about one command through between two batches there, and with 12,000 streams
// (3 batches) every writer got exactly 3, the assertion's bare minimum; 24,000 (5 batches) gave 5–9.
const STREAMS = onPostgres ? 100_000 : 24_000;
const WRITERS = 4;
const DAMAGED = 10;

let app: TestApp;
let c: ReturnType<typeof client>;
let actor: string;

const REBUILD = `mutation($dryRun: Boolean) { rebuildTensionProjection(dryRun: $dryRun) { streams events inserted updated deleted unchanged dryRun } }`;
const seededId = (n: number) => `00000000-0000-4000-8000-${String(100_000_000_000 + n)}`;

beforeAll(async () => {
  app = await startTestApp();
  c = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*', 'projections:rebuild'] })).key);
  actor = await newActor(c, 'Bulk');
  // The bulk by SQL, as the command path writes it: one TensionSensed each (data copied from a real one,
  // renamed and renumbered) and the row evolve folds it to.
  const template = await newTension(c, { name: 'Template', actorId: actor, score: 4 });
  await app.em().execute(
    `with s as (select data, metadata, occurred_at from domain_events where stream_id = ? and version = 1)
     insert into domain_events (id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
     select gen_random_uuid(), 'tension', ('00000000-0000-4000-8000-' || (100000000000 + g))::uuid, 1, 'TensionSensed', 1,
            s.data || jsonb_build_object('id', ('00000000-0000-4000-8000-' || (100000000000 + g)), 'name', 'Bulk ' || g),
            s.metadata, s.occurred_at
     from generate_series(1, ?::int) g, s order by g`,
    [template.id, STREAMS],
  );
  await app.em().execute(
    `insert into tensions (id, name, current_context, potential_future, score, state, actor_id, lead_user_id, version, created_at, updated_at)
     select ('00000000-0000-4000-8000-' || (100000000000 + g))::uuid, 'Bulk ' || g, t.current_context, t.potential_future, t.score,
            'alive', t.actor_id, null, 1, t.created_at, t.updated_at
     from generate_series(1, ?::int) g, tensions t where t.id = ?`,
    [STREAMS, template.id],
  );
  await app.em().execute('analyze domain_events');
  await app.em().execute('analyze tensions');
}, 300_000);
afterAll(async () => {
  await app?.close();
});

async function foldOf(id: string) {
  const events = await streamOf(app, id);
  return foldPast(events.map((e) => ({ type: e.type, data: e.data, version: e.version, occurredAt: new Date(e.occurred_at) }) as RecordedTensionEvent)).state;
}

describe(`a rebuild of ${STREAMS.toLocaleString('en')} streams racing live commands`, () => {
  it('lets every command through while it runs, repairs the damage, and leaves every row at its fold', async () => {
    expect((await c.gql(REBUILD, { dryRun: true })).body.data.rebuildTensionProjection).toMatchObject({ inserted: 0, updated: 0, deleted: 0 });
    // Damage: rows missing and rows tampered, far from the tensions the writers use.
    const missing = Array.from({ length: DAMAGED }, (_, i) => seededId(STREAMS - i));
    const tampered = Array.from({ length: DAMAGED }, (_, i) => seededId(STREAMS - DAMAGED - i));
    await app.em().execute('delete from tensions where id = any(?::uuid[])', [`{${missing.join(',')}}`]);
    await app.em().execute(`update tensions set name = 'tampered' where id = any(?::uuid[])`, [`{${tampered.join(',')}}`]);

    // Writers on seeded tensions spread over the whole range (the rebuild reaches each one's batch at
    // some point) and on tensions sensed now, after the bulk in id order or not.
    const targets = Array.from({ length: WRITERS }, (_, w) => seededId(1 + Math.floor(((w + 0.5) * STREAMS) / (WRITERS + 1))));
    const fresh = await newTension(c, { name: 'Fresh', actorId: actor });
    targets.push(fresh.id);

    let rebuilding = true;
    const answers: number[] = [];
    const during = targets.map(() => 0);
    const rebuild = c.gql(REBUILD, { dryRun: false }).finally(() => (rebuilding = false));
    // A reader counting rows meanwhile: the table is never emptied or half filled, only repaired in place.
    let fewest = Infinity;
    const reader = (async () => {
      while (rebuilding) {
        const [{ n }] = await app.em().execute('select count(*)::int as n from tensions');
        fewest = Math.min(fewest, n);
      }
    })();
    await Promise.all(
      targets.map(async (id, w) => {
        for (let score = 1; rebuilding; score = (score % 10) + 1) {
          const res = await c.post(`/tensions/${id}/rescore`, { score });
          answers.push(res.status);
          if (rebuilding) during[w]++;
        }
      }),
    );
    const report = (await rebuild).body;
    await reader;
    expect(fewest).toBeGreaterThanOrEqual(STREAMS + 2 - DAMAGED);
    expect(report.errors).toBeUndefined();

    // Every command answered, and every writer got several through while the rebuild ran (a rebuild
    // holding a table-wide lock lets at most the one already in flight through).
    expect(answers.filter((s) => s !== 200)).toEqual([]);
    for (const n of during) expect(n).toBeGreaterThanOrEqual(3);
    expect(report.data.rebuildTensionProjection).toMatchObject({ streams: STREAMS + 2, inserted: DAMAGED, updated: DAMAGED, deleted: 0, dryRun: false });

    for (const id of [...targets, ...missing, ...tampered]) {
      const row = await projectionRow(app, id);
      const state = await foldOf(id);
      expect({ id, name: row?.name, score: Number(row?.score), version: row?.version }).toEqual({
        id,
        name: state!.name,
        score: state!.score,
        version: state!.version,
      });
    }
    expect((await c.gql(REBUILD, { dryRun: true })).body.data.rebuildTensionProjection).toMatchObject({
      streams: STREAMS + 2,
      inserted: 0,
      updated: 0,
      deleted: 0,
    });
  }, 300_000);
});
