// Commands racing what removes their tension (a discard, the actor's deletion) or their lead's
// deactivation: never a 5xx, never a row brought back, never an assignment decided on a stale status.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { onPostgres } from '../../support/database.js';
import { insertUser, newActor, newTension, projectionRow, streamOf } from '../../support/tensions.js';

let app: TestApp;
let c: ReturnType<typeof client>;
let lead: string;
let other: string;

beforeAll(async () => {
  app = await startTestApp();
  c = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*', 'users:*'] })).key);
  lead = await insertUser(app, { name: 'Lead' });
  other = await newActor(c, 'Elsewhere');
});
afterAll(async () => {
  await app?.close();
});

/** Every tension command, with the state it needs first (so each one would append). */
const COMMANDS: { name: string; prepare?: string; run: (id: string) => Promise<{ status: number; body: any }> }[] = [
  { name: 'rename', run: (id) => c.post(`/tensions/${id}/rename`, { name: 'Renamed' }) },
  { name: 'rescore', run: (id) => c.post(`/tensions/${id}/rescore`, { score: 9 }) },
  { name: 'revise', run: (id) => c.post(`/tensions/${id}/revise`, { currentContext: 'revised' }) },
  { name: 'lead', run: (id) => c.post(`/tensions/${id}/lead`, { leadUserId: lead }) },
  { name: 'reassign', run: (id) => c.post(`/tensions/${id}/reassign`, { actorId: other }) },
  { name: 'resolve', run: (id) => c.post(`/tensions/${id}/resolve`) },
  { name: 'drop', run: (id) => c.post(`/tensions/${id}/drop`) },
  { name: 'reopen', prepare: 'resolve', run: (id) => c.post(`/tensions/${id}/reopen`) },
  { name: 'revive', prepare: 'drop', run: (id) => c.post(`/tensions/${id}/revive`) },
  { name: 'discard', run: (id) => c.del(`/tensions/${id}`) },
];
const ALLOWED = [200, 201, 204, 404, 409];

async function prepared(actorId: string, cmd: (typeof COMMANDS)[number]) {
  const t = await newTension(c, { name: `${cmd.name} target`, actorId });
  if (cmd.prepare) expect((await c.post(`/tensions/${t.id}/${cmd.prepare}`)).status).toBe(200);
  return t.id;
}

const jitter = () => new Promise((r) => setTimeout(r, Math.random() * 4));
const statusLine = (answers: { name: string; status: number; body: any }[]) =>
  answers.filter((a) => !ALLOWED.includes(a.status)).map((a) => `${a.name} → ${a.status} ${JSON.stringify(a.body)}`);

/** The tension is gone for good: no row, and its stream ends with the one discard. */
async function expectDiscarded(id: string) {
  expect(await projectionRow(app, id)).toBeNull();
  const stream = await streamOf(app, id);
  expect(stream.filter((e) => e.type === 'TensionDiscarded')).toHaveLength(1);
  expect(stream[stream.length - 1].type).toBe('TensionDiscarded');
}

// Black-box: as a client would try it, many times. The embedded database runs one transaction at a
// time, so fewer rounds there; the forced interleavings below run on PostgreSQL.
const ROUNDS = onPostgres ? 6 : 2;

describe('every command racing a discard of its tension', () => {
  it('answers only 200/204/404/409, and the discarded row never comes back', async () => {
    const actor = await newActor(c, 'Discard race');
    for (let round = 0; round < ROUNDS; round++) {
      const targets = await Promise.all(COMMANDS.map(async (cmd) => ({ cmd, id: await prepared(actor, cmd) })));
      const answers = await Promise.all(
        targets.flatMap(({ cmd, id }) => [
          jitter()
            .then(() => cmd.run(id))
            .then((r) => ({ name: cmd.name, ...r })),
          jitter()
            .then(() => c.del(`/tensions/${id}`))
            .then((r) => ({ name: `discard vs ${cmd.name}`, ...r })),
        ]),
      );
      expect(statusLine(answers)).toEqual([]);
      for (const [i, { id }] of targets.entries()) {
        const [command, discard] = [answers[2 * i], answers[2 * i + 1]];
        // A discard that lost to the command (409, the server never retries) leaves the tension as the command left it.
        if (discard.status === 409) expect((await projectionRow(app, id)).version).toBe(command.body.tension.version);
        else await expectDiscarded(id);
      }
    }
  });
});

describe('every command racing the deletion of its actor', () => {
  it('answers only 200/204/404/409 (sense: 201/404), the deletion always succeeds, and no row survives it', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const actor = await newActor(c, `Doomed ${round}`);
      const targets = await Promise.all(COMMANDS.map(async (cmd) => ({ cmd, id: await prepared(actor, cmd) })));
      const answers = await Promise.all([
        ...targets.map(({ cmd, id }) =>
          jitter()
            .then(() => cmd.run(id))
            .then((r) => ({ name: cmd.name, ...r })),
        ),
        jitter()
          .then(() => c.post('/tensions', { name: 'Sensed late', actorId: actor }))
          .then((r) => ({ name: 'sense', ...r })),
        jitter()
          .then(() => c.del(`/actors/${actor}`))
          .then((r) => ({ name: 'delete actor', ...r })),
      ]);
      expect(statusLine(answers)).toEqual([]);
      expect(answers.find((a) => a.name === 'delete actor')!.status).toBe(204);
      const sensed = answers.find((a) => a.name === 'sense')!;
      expect([201, 404]).toContain(sensed.status);
      const reassigned = answers.find((a) => a.name === 'reassign')!;
      for (const { cmd, id } of targets) {
        // a reassign that committed first moved its tension out of the deletion's reach
        if (cmd.name === 'reassign' && reassigned.status === 200) expect((await projectionRow(app, id)).actor_id).toBe(other);
        else await expectDiscarded(id);
      }
      if (sensed.status === 201) await expectDiscarded(sensed.body.tension.id);
      expect(await app.em().execute('select count(*)::int as n from tensions where actor_id = ?', [actor])).toEqual([{ n: 0 }]);
    }
  });
});

// ---- forced interleavings (PostgreSQL: the embedded database never runs two transactions at once) ----

/**
 * A transaction on its own connection (outside the app's pool, which the commands need) that stays
 * open after `work` until `commit()`; and `waitForLockWaits(n)`, which resolves once n sessions of the
 * database wait on a lock.
 */
async function heldTransaction(work: (sql: (text: string, params?: unknown[]) => Promise<any[]>) => Promise<void>) {
  const conn = new pg.Client({ connectionString: app.db.url });
  await conn.connect();
  const sql = async (text: string, params?: unknown[]) => (await conn.query(text, params)).rows;
  await sql('begin');
  await work(sql);
  let ended = false;
  return {
    async waitForLockWaits(n: number) {
      for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
        const [{ waiting }] = await sql(
          `select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        if (waiting >= n) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`fewer than ${n} sessions ever waited on a lock`);
    },
    async commit() {
      if (ended) return;
      ended = true;
      await sql('commit');
      await conn.end();
    },
  };
}

describe.runIf(onPostgres)('a command that read its row before the row was removed', () => {
  it('answers 404 once the actor deletion that removed it commits (no foreign-key 500, no row brought back)', async () => {
    // Five at a time: each waiting command holds one of the app's ten pooled connections.
    for (const group of [COMMANDS.slice(0, 5), COMMANDS.slice(5)]) {
      const actor = await newActor(c, 'Deleted under them');
      const targets = await Promise.all(group.map(async (cmd) => ({ cmd, id: await prepared(actor, cmd) })));
      // What an actor deletion writes, held open: commands read the rows it is removing (their
      // snapshots still show them), then queue on the row locks it holds.
      const deletion = await heldTransaction(async (sql) => {
        // as the service's actor deletion does: the feed lock before the first write (the database refuses the append otherwise)
        await sql('select market_feed_lock()');
        await sql('select id from actors where id = $1 for update', [actor]);
        for (const { id } of [...targets].sort((a, b) => a.id.localeCompare(b.id))) {
          const [row] = await sql('delete from tensions where id = $1 returning version', [id]);
          await sql(
            `insert into domain_events (id, stream_type, stream_id, version, type, data, metadata, occurred_at)
             values ($1, 'tension', $2, $3, 'TensionDiscarded', '{}', $4, now())`,
            [randomUUID(), id, row.version + 1, JSON.stringify({ actorKind: 'system', userId: null, userName: 'race', via: 'cli' })],
          );
        }
        await sql('delete from actors where id = $1', [actor]);
      });
      try {
        const pending = targets.map(({ cmd, id }) => cmd.run(id).then((r) => ({ name: cmd.name, ...r })));
        await deletion.waitForLockWaits(targets.length);
        await deletion.commit();
        const answers = await Promise.all(pending);
        expect(answers.map((a) => [a.name, a.status, a.body?.code])).toEqual(targets.map(({ cmd }) => [cmd.name, 404, 'not_found']));
      } finally {
        await deletion.commit();
      }
      for (const { id } of targets) await expectDiscarded(id);
    }
  });
});

describe('a lead assignment racing the deactivation of the lead', () => {
  it.runIf(onPostgres)('waits for a deactivation in flight and then refuses (422), instead of deciding on the old status', async () => {
    const actor = await newActor(c, 'Lead race');
    const t = await newTension(c, { name: 'Needs a lead', actorId: actor });
    const user = await insertUser(app, { name: 'Leaving' });
    // What deactivateUser does to the row, held open.
    const deactivation = await heldTransaction(async (sql) => {
      await sql('select id from users where id = $1 for update', [user]);
      await sql(`update users set status = 'deactivated' where id = $1`, [user]);
    });
    try {
      const assignment = c.post(`/tensions/${t.id}/lead`, { leadUserId: user });
      await deactivation.waitForLockWaits(1);
      await deactivation.commit();
      const res = await assignment;
      expect([res.status, res.body.code]).toEqual([422, 'not_applicable']);
    } finally {
      await deactivation.commit();
    }
    expect((await projectionRow(app, t.id)).lead_user_id).toBeNull();
  });

  it('through the API: every answer 200/204/422, and each row agrees with the assignment answer', async () => {
    const actor = await newActor(c, 'Lead race API');
    for (let round = 0; round < ROUNDS; round++) {
      const users = await Promise.all(Array.from({ length: 4 }, (_, i) => insertUser(app, { name: `Leaving ${round}.${i}` })));
      const tensions = await Promise.all(users.map((_, i) => newTension(c, { name: `Lead target ${round}.${i}`, actorId: actor })));
      const answers = await Promise.all(
        users.flatMap((u, i) => [
          jitter()
            .then(() => c.post(`/tensions/${tensions[i].id}/lead`, { leadUserId: u }))
            .then((r) => ({ name: 'lead', ...r })),
          jitter()
            .then(() => c.del(`/users/${u}`))
            .then((r) => ({ name: 'deactivate', ...r })),
        ]),
      );
      expect(answers.filter((a) => ![200, 204, 422].includes(a.status)).map((a) => `${a.name} → ${a.status} ${JSON.stringify(a.body)}`)).toEqual([]);
      expect(answers.filter((a) => a.name === 'deactivate').map((a) => a.status)).toEqual([204, 204, 204, 204]);
      // The row agrees with the answer: led by the user exactly when the assignment was accepted.
      for (const [i, t] of tensions.entries()) {
        const row = await projectionRow(app, t.id);
        const answer = answers[2 * i];
        expect(row.lead_user_id).toBe(answer.status === 200 ? users[i] : null);
      }
    }
  });
});
