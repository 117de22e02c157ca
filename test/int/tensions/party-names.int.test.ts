// The parties' sort names on each tension (issue 37, Migration20261129160000): `sort=actor` and `sort=lead`
// read `actor_sort` / `lead_sort`, which stay the party's lower-cased name through every writer: a tension
// sensed, reassigned, given or relieved of a lead (a trigger); an actor or a user renamed (recorded, then
// rewritten after the rename in batches); a lead deleted. A rename and a tension naming that party, at once,
// never leave the old name behind, and a tension moved to another party while the rename is rewritten keeps the
// other's. The migration fills the names of tensions written before it.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrator as loadMigrator } from '../../../server/persistence/database.js';
import { syncTensionPartyNames } from '../../../server/persistence/tension-party-names.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../../support/database.js';
import { waitForLockWaiters } from '../../support/row-lock.js';
import { insertUser, newActor, newTension } from '../../support/tensions.js';

const MIGRATION = 'Migration20261129160000_tension_party_names';

let app: TestApp;
let c: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp();
  c = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*', 'users:*'] })).key);
});
afterAll(async () => {
  await app?.close();
});

/** Each tension's stored sort names beside its parties' names as they are now. */
async function names(ids: string[]) {
  return app.em().execute<{ id: string; actor_sort: string | null; actor_name: string; lead_sort: string | null; lead_name: string | null }[]>(
    `select t.id, t.actor_sort, a.name as actor_name, t.lead_sort, u.name as lead_name
       from tensions t join actors a on a.id = t.actor_id left join users u on u.id = t.lead_user_id
       where t.id = any(?::uuid[]) order by t.id`,
    [`{${ids.join(',')}}`],
  );
}

/** A session of the app's database, to hold a transaction open. */
async function session(): Promise<pg.Client> {
  const held = new pg.Client({ connectionString: app.db.url! });
  await held.connect();
  return held;
}

/** Resolves once a session of this database waits on a lock (1), or 0 if `stopped()` first; throws after 15 s. */
const lockWaitSeen = (what: string, stopped?: () => boolean) => waitForLockWaiters(app.db.url!, 1, { what, stopped });

interface Item {
  id: string;
  name: string;
  actor: { id: string; name: string };
  lead: { id: string; name: string } | null;
}

/** The search's tensions as the list orders them under `sort`. */
const listed = async (sort: string): Promise<string[]> => {
  const res = await c.get(`/tensions?q=PN&limit=100&sort=${sort}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.map((t: Item) => t.name);
};

/** The same tensions ordered here from their parties' names as they are now (docs/tensions.md's order). */
async function expected(sort: string): Promise<string[]> {
  const items: Item[] = (await c.get('/tensions?q=PN&limit=100')).body.data;
  const by = sort.replace('-', '') as 'actor' | 'lead';
  const dir = sort.startsWith('-') ? -1 : 1;
  const key = (t: Item) => (by === 'actor' ? t.actor : t.lead);
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return items
    .sort((a, b) => {
      const [pa, pb] = [key(a), key(b)];
      if (!pa || !pb) return pa ? -1 : pb ? 1 : dir * cmp(a.id, b.id); // no lead: last, by id
      return dir * (cmp(pa.name.toLowerCase(), pb.name.toLowerCase()) || cmp(pa.id, pb.id) || cmp(a.id, b.id));
    })
    .map((t) => t.name);
}

async function ordersFollowNames(): Promise<void> {
  for (const sort of ['actor', '-actor', 'lead', '-lead']) expect(await listed(sort), sort).toEqual(await expected(sort));
}

describe('tension party sort names', () => {
  it('follow every write of a tension and every rename of its parties, and order the lists by them', async () => {
    const north = await newActor(c, 'North Co');
    const south = await newActor(c, 'south Co');
    const mia = await insertUser(app, { name: 'Mia' });
    const ben = await insertUser(app, { name: 'ben' });
    const one = await newTension(c, { name: 'PN one', actorId: north, leadUserId: mia });
    const two = await newTension(c, { name: 'PN two', actorId: south, leadUserId: ben });
    const three = await newTension(c, { name: 'PN three', actorId: north });
    const ids = [one.id, two.id, three.id];
    const mismatches = async () =>
      (await names(ids)).filter((row) => row.actor_sort !== row.actor_name.toLowerCase() || row.lead_sort !== (row.lead_name?.toLowerCase() ?? null));
    const consistent = async () => expect(await mismatches()).toEqual([]);
    // a rename's tensions take the new name after it commits, in the background: this waits for that round
    const settled = () => app.deps.partyNames.run();
    await consistent();
    await ordersFollowNames();
    expect(await listed('lead')).toEqual(['PN two', 'PN one', 'PN three']);

    // the actor renamed past the other (the rename itself starts the rewrite), then in case only
    expect((await c.patch(`/actors/${north}`, { name: 'Zenith Co' })).status).toBe(200);
    await expect.poll(mismatches, { timeout: 10_000 }).toEqual([]);
    await ordersFollowNames();
    expect((await listed('actor')).at(0)).toBe('PN two');
    // (by SQL, so that no background round can have emptied the records before they are read)
    await app.em().execute(`update actors set name = 'ZENITH CO' where id = ?`, [north]);
    expect(await app.em().execute('select * from tension_party_name_syncs'), 'a rename in case only').toEqual([]);
    await consistent();
    await ordersFollowNames();

    // a lead renamed, a tension reassigned, a lead given and one taken away
    expect((await c.patch(`/users/${mia}`, { name: 'Aaron' })).status).toBe(200);
    await settled();
    await consistent();
    await ordersFollowNames();
    expect(await listed('lead')).toEqual(['PN one', 'PN two', 'PN three']);
    expect((await c.post(`/tensions/${two.id}/reassign`, { actorId: north })).status).toBe(200);
    expect((await c.post(`/tensions/${three.id}/reassign`, { actorId: south })).status).toBe(200);
    expect((await c.post(`/tensions/${three.id}/lead`, { leadUserId: ben })).status).toBe(200);
    expect((await c.post(`/tensions/${one.id}/lead`, { leadUserId: null })).status).toBe(200);
    await consistent();
    await ordersFollowNames();
    expect((await listed('actor')).at(0)).toBe('PN three');
    expect((await listed('lead')).at(-1)).toBe('PN one');

    // a rescore changes no party: the names stay as they are
    expect((await c.post(`/tensions/${two.id}/rescore`, { score: 9 })).status).toBe(200);
    await consistent();

    // a lead deleted: its tensions have no lead, and list with those without one, last
    await app.em().execute('delete from users where id = ?', [ben]);
    await consistent();
    await ordersFollowNames();
  });

  it('a rename left unfinished (a stop, a crash, SQL outside the service) is finished a batch at a time', async () => {
    await syncTensionPartyNames(app.em()); // (nothing left over from the test before)
    const actor = await newActor(c, 'Batch Co');
    const lead = await insertUser(app, { name: 'Batch Lead' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await newTension(c, { name: `PN batch ${i}`, actorId: actor, leadUserId: lead })).id);
    // renamed by SQL, as a bulk edit would: the records are written, nothing rewrites the tensions yet
    await app.em().execute(`update actors set name = 'Batch Co Renamed' where id = ?`, [actor]);
    await app.em().execute(`update users set name = 'Batch Lead Renamed' where id = ?`, [lead]);
    expect(await names(ids)).toMatchObject(ids.map(() => ({ actor_sort: 'batch co', lead_sort: 'batch lead' })));
    expect(await syncTensionPartyNames(app.em(), 2)).toBe(10);
    expect(await names(ids)).toMatchObject(ids.map(() => ({ actor_sort: 'batch co renamed', lead_sort: 'batch lead renamed' })));
    expect(await app.em().execute('select * from tension_party_name_syncs')).toEqual([]);
    expect(await syncTensionPartyNames(app.em(), 2)).toBe(0);

    // renamed away and back before any rewrite: the first record names the current name again, and ends
    await app.em().execute(`update actors set name = 'Batch Co Interim' where id = ?`, [actor]);
    await app.em().execute(`update actors set name = 'Batch Co Renamed' where id = ?`, [actor]);
    expect(await app.em().execute('select stale_name from tension_party_name_syncs order by stale_name')).toEqual([
      { stale_name: 'batch co interim' },
      { stale_name: 'batch co renamed' },
    ]);
    expect(await syncTensionPartyNames(app.em(), 2)).toBe(0);
    expect(await names(ids)).toMatchObject(ids.map(() => ({ actor_sort: 'batch co renamed' })));
    expect(await app.em().execute('select * from tension_party_name_syncs')).toEqual([]);
  }, 30_000);

  it.skipIf(!onPostgres)('a tension naming a party being renamed waits for the rename and takes the new name', async () => {
    const actor = await newActor(c, 'Old Name Co');
    const renamer = await session();
    try {
      await renamer.query('begin');
      await renamer.query(`update actors set name = 'New Name Co' where id = $1`, [actor]);
      const sensed = c.post('/tensions', { name: 'PN during a rename', actorId: actor });
      // the tension's write waits on the rename's row (without it, it would write the old name and commit)
      await lockWaitSeen('a wait of the tension on the rename');
      await renamer.query('commit');
      const res = await sensed;
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(await names([res.body.tension.id])).toMatchObject([{ actor_sort: 'new name co', actor_name: 'New Name Co' }]);
    } finally {
      await renamer.end();
    }
  });

  // The rewrite finds its tensions by the old name, then locks each: a tension given another party meanwhile
  // (committed while the rewrite waits on its row) must keep that party's name, not take the renamed one's.
  it.skipIf(!onPostgres).each(['actor', 'lead'] as const)(
    "a tension given another %s while the old one's rename is rewritten keeps the new party's name",
    async (kind) => {
      await syncTensionPartyNames(app.em()); // (nothing left over from the tests before)
      const [renamed, other] =
        kind === 'actor'
          ? [await newActor(c, `Race ${kind} Old`), await newActor(c, `Race ${kind} Other`)]
          : [await insertUser(app, { name: `Race ${kind} Old` }), await insertUser(app, { name: `Race ${kind} Other` })];
      const actor = kind === 'actor' ? renamed : await newActor(c, 'Race Co');
      const written = [
        await newTension(c, { name: `PN race ${kind} 1`, actorId: actor, ...(kind === 'lead' ? { leadUserId: renamed } : {}) }),
        await newTension(c, { name: `PN race ${kind} 2`, actorId: actor, ...(kind === 'lead' ? { leadUserId: renamed } : {}) }),
      ].sort((a, b) => (a.id < b.id ? -1 : 1));
      // the rewrite picks a batch in id order: with batches of one, the moved tension is its whole first batch,
      // rewritten to nothing, and the job must still go on to the other
      const [tension, stayed] = written;
      // renamed by SQL: recorded, not yet rewritten
      await app.em().execute(`update ${kind === 'actor' ? 'actors' : 'users'} set name = ? where id = ?`, [`Race ${kind} New`, renamed]);
      const mover = await session();
      try {
        await mover.query('begin');
        await mover.query(`update tensions set ${kind === 'actor' ? 'actor_id' : 'lead_user_id'} = $1 where id = $2`, [other, tension.id]);
        const rewrite = syncTensionPartyNames(app.em(), 1);
        await lockWaitSeen('a wait of the rewrite on the moved tension');
        await mover.query('commit');
        await rewrite;
      } finally {
        await mover.end();
      }
      const [row] = await names([tension.id]);
      const [name, sort] = kind === 'actor' ? [row.actor_name, row.actor_sort] : [row.lead_name, row.lead_sort];
      expect({ name, sort }).toEqual({ name: `Race ${kind} Other`, sort: `race ${kind} other` });
      const [kept] = await names([stayed.id]);
      expect(kind === 'actor' ? kept.actor_sort : kept.lead_sort).toBe(`race ${kind} new`);
      expect(await app.em().execute('select * from tension_party_name_syncs')).toEqual([]);
    },
    30_000,
  );

  // A batch that gave rows a name a rename was replacing, committed after that rename's own job (another
  // instance's) had found none of them, would leave them under it: a batch reads the name under a lock that
  // a rename waits for.
  it.skipIf(!onPostgres)('a rewrite never reads a party name that a rename in progress replaces', async () => {
    await syncTensionPartyNames(app.em());
    const actor = await newActor(c, 'Lock Co');
    const tension = await newTension(c, { name: 'PN lock', actorId: actor });
    await app.em().execute(`update actors set name = 'Lock Co Two' where id = ?`, [actor]);
    const renamer = await session();
    try {
      await renamer.query('begin');
      await renamer.query(`update actors set name = 'Lock Co Three' where id = $1`, [actor]);
      let finished = false;
      const rewrite = syncTensionPartyNames(app.em()).finally(() => (finished = true));
      expect(await lockWaitSeen('a wait of the rewrite for the rename', () => finished), 'the rewrite read the name under the rename').toBeGreaterThan(0);
      await renamer.query('commit');
      await rewrite;
    } finally {
      await renamer.end();
    }
    expect(await names([tension.id])).toMatchObject([{ actor_sort: 'lock co three' }]);
    expect(await app.em().execute('select * from tension_party_name_syncs')).toEqual([]);
  });

  // An idempotent mutation runs in one transaction with its answer: the rewrite must start after that commits.
  it('a rename made with an idempotency key is rewritten at once, not at the next housekeeping round', async () => {
    await syncTensionPartyNames(app.em());
    const actor = await newActor(c, 'Keyed Co');
    const lead = await insertUser(app, { name: 'Keyed Lead' });
    const tension = await newTension(c, { name: 'PN keyed', actorId: actor, leadUserId: lead });
    // (the housekeeping round that would also finish it is 10 minutes away)
    const rewritten = (expected: object) => expect.poll(async () => (await names([tension.id]))[0], { timeout: 10_000 }).toMatchObject(expected);
    const renamed = await c.gql('mutation($id: ID!) { updateActor(id: $id, input: { name: "Keyed Co Renamed" }, idempotencyKey: "pn-keyed-actor") { id } }', {
      id: actor,
    });
    expect(renamed.body.errors).toBeUndefined();
    await rewritten({ actor_sort: 'keyed co renamed', lead_sort: 'keyed lead' });
    const led = await c.gql('mutation($id: ID!) { updateUser(id: $id, input: { name: "Keyed Lead Renamed" }, idempotencyKey: "pn-keyed-user") { id } }', {
      id: lead,
    });
    expect(led.body.errors).toBeUndefined();
    await rewritten({ actor_sort: 'keyed co renamed', lead_sort: 'keyed lead renamed' });
  });
});

describe(MIGRATION, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.close();
  });

  it('fills the sort names of the tensions written before it', async () => {
    const em = () => db.orm.em.fork();
    const migrator = await loadMigrator(db.orm);
    await migrator.down({ to: MIGRATION });
    const [actor, lead, withLead, without] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await em().execute(`insert into actors (id, name, type, created_at, updated_at) values (?, 'Harbour Co', 'organization', now(), now())`, [actor]);
    await em().execute(
      `insert into users (id, type, email, name, status, created_at, updated_at) values (?, 'agent', ?, 'Lena Lead', 'active', now(), now())`,
      [lead, `lead-${lead}@test.example`],
    );
    for (const [id, leadId] of [
      [withLead, lead],
      [without, null],
    ])
      await em().execute(
        `insert into tensions (id, name, score, state, actor_id, lead_user_id, version, created_at, updated_at) values (?, 'old', 5, 'alive', ?, ?, 1, now(), now())`,
        [id, actor, leadId],
      );
    await migrator.up();
    const rows = await em().execute<{ id: string; actor_sort: string; lead_sort: string | null }[]>(
      'select id, actor_sort, lead_sort from tensions where id in (?, ?) order by lead_sort nulls last',
      [withLead, without],
    );
    expect(rows).toEqual([
      { id: withLead, actor_sort: 'harbour co', lead_sort: 'lena lead' },
      { id: without, actor_sort: 'harbour co', lead_sort: null },
    ]);
  });
});
