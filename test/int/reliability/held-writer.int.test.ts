// A transaction that appends and then stays open (a COMMIT held up by a slow client, a connection cut before
// its COMMIT, which the server holds until it notices, a long import) makes no other writer wait. The
// dashboard's rollups were one row per key, and every writer of the same key queued behind the held one:
// 1 in 16 of the day's writers of an event type, or every writer of an actor's tensions at one state and
// score (Migration20261128200000). The first test is PostgreSQL's only: the embedded database runs one
// transaction at a time.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { onPostgres } from '../../support/database.js';
import { newActor, newTension } from '../../support/tensions.js';
import { expectRollupsMatchSources } from '../../support/rollups.js';

let app: TestApp;
let c: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp();
  c = client(app, (await seedUserWithKey(app, { grants: ['tensions:*', 'actors:*'] })).key);
});
afterAll(async () => {
  await app?.close();
});

/** A raw connection to the app's database, ended when the test ends however it ends. */
async function connection(): Promise<pg.Client> {
  const conn = new pg.Client({ connectionString: app.db.url });
  await conn.connect();
  onTestFinished(() => conn.end().catch(() => undefined));
  return conn;
}

/**
 * Awaits `request`, failing as soon as a backend of the database waits for a lock `holder` holds (what a
 * writer queued behind the held transaction shows, long before its statement timeout answers 503).
 */
async function withoutWaitingFor<T>(holder: number, watcher: pg.Client, what: string, request: Promise<T>): Promise<T> {
  let answered = false;
  const settled = request.finally(() => (answered = true));
  while (!answered) {
    const { rows } = await watcher.query<{ query: string }>(
      'select query from pg_stat_activity where datname = current_database() and $1 = any(pg_blocking_pids(pid))',
      [holder],
    );
    if (rows.length) throw new Error(`${what} waits for the held transaction: ${rows[0].query.slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return settled;
}

describe('a writer whose transaction stays open', () => {
  it.runIf(onPostgres)('makes no command wait, whichever rollup rows it holds; the rollups still equal their sources', async () => {
    const actorId = await newActor(c, 'Held org');
    const moved = await newTension(c, { name: 'Moved while held', actorId, score: 3 });
    const held = await connection();
    const watcher = await connection();
    const {
      rows: [{ pid }],
    } = await held.query<{ pid: number }>('select pg_backend_pid() as pid');
    await held.query('begin');
    await held.query('select market_feed_lock()');
    // Today's sensed and rescored events on streams of every one of the 16 shards the stream id used to choose
    // (2,000 random ids miss one with odds below 1e-50), and tension rows at (actor, alive, 3) and (actor, alive, 5).
    await held.query(
      `insert into domain_events (id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
       select gen_random_uuid(), 'tension', s.id, v.version, v.type, 1, '{"score": 5}', '{"via":"cli","actorKind":"system"}', now()
       from (select distinct on (abs(hashtext(r.id::text)) % 16) r.id from (select gen_random_uuid() as id from generate_series(1, 2000)) r) s,
            (values (1, 'TensionSensed'), (2, 'TensionRescored')) as v(version, type)`,
    );
    const {
      rows: [{ shards }],
    } = await held.query<{ shards: number }>(
      'select count(distinct abs(hashtext(stream_id::text)) % 16)::int as shards from domain_events where transaction_id = pg_current_xact_id()',
    );
    expect(shards).toBe(16);
    await held.query(
      `insert into tensions (id, name, score, state, actor_id, version, created_at, updated_at)
       select gen_random_uuid(), 'Held ' || s, s, 'alive', $1, 1, now(), now() from unnest(array[3, 5]) s`,
      [actorId],
    );

    // A new tension at the held score, and a rescore that leaves one held key for the other.
    const sensed = await withoutWaitingFor(pid, watcher, 'a new tension', c.post('/tensions', { name: 'Sensed while held', actorId, score: 5 }));
    expect(sensed.status, JSON.stringify(sensed.body)).toBe(201);
    const rescored = await withoutWaitingFor(pid, watcher, 'a rescore', c.post(`/tensions/${moved.id}/rescore`, { score: 5 }));
    expect(rescored.status, JSON.stringify(rescored.body)).toBe(200);

    await held.query('commit');
    await expectRollupsMatchSources(app);
  });

  it('adds rows to a rollup only while every row of its key is held: writers one at a time reuse one', async () => {
    const actorId = await newActor(c, 'Rescored org');
    const t = await newTension(c, { name: 'Rescored in turn', actorId, score: 1 });
    const rows = async () => {
      const [{ keys, load, flow }] = await app.em().execute(
        `select (select count(distinct (state, score))::int from tension_load where actor_id = ?) as keys,
                (select count(*)::int from tension_load where actor_id = ?) as load,
                (select count(*)::int from tension_flow_days where type = 'TensionRescored') as flow`,
        [actorId, actorId],
      );
      return { keys, load, flow };
    };
    expect((await c.post(`/tensions/${t.id}/rescore`, { score: 2 })).status).toBe(200);
    const before = await rows();
    for (let score = 3; score <= 10; score++) expect((await c.post(`/tensions/${t.id}/rescore`, { score })).status).toBe(200);
    // one row per (state, score) the actor's tension passed through, and the day's rescores kept in the same rows
    expect(await rows()).toEqual({ keys: 10, load: 10, flow: before.flow });
    await expectRollupsMatchSources(app);
  });
});
