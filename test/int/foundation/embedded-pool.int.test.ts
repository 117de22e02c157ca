// The embedded databases the test workers hand from file to file (test/support/embedded-pool.ts): a file
// must see what a freshly loaded template shows, never an earlier file's rows, sequences or schema.
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { newActor, newTension } from '../../support/tensions.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../../support/database.js';

const opened: (TestApp | TestDatabase)[] = [];
afterAll(async () => {
  for (const o of opened) await o.close();
});

const socketOf = (db: TestDatabase) => String(db.orm.config.get('host'));
const rows = (db: TestDatabase, sql: string) => db.orm.em.fork().getConnection().execute<Record<string, unknown>[]>(sql);

/** What a file can see of a database's state: row counts of the written tables, sequences, the migrations. */
async function state(db: TestDatabase) {
  const [counts] = await rows(
    db,
    `select (select count(*) from users)::int as users, (select count(*) from tensions)::int as tensions,
            (select count(*) from domain_events)::int as events, (select count(*) from audit_log)::int as audit,
            (select count(*) from mikro_orm_migrations)::int as migrations`,
  );
  const sequences = await rows(db, `select sequencename, last_value::text from pg_sequences order by 1`);
  return { counts, sequences };
}

describe.skipIf(onPostgres)('a closed embedded database handed to the next file', () => {
  it("shows none of the earlier file's rows or sequence values, and the template's migrations", async () => {
    const fresh = await createTestDatabase();
    const template = await state(fresh);
    const socket = socketOf(fresh);
    await fresh.close();

    // a file's worth of writes: users, a tension with its events, audit, the feed's sequence moved
    const app = await startTestApp({}, {}, await createTestDatabase());
    expect(socketOf(app.db)).toBe(socket);
    const seeded = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*'] });
    const c = client(app, seeded.key);
    await newTension(c, { name: 'Pool check', actorId: await newActor(c, 'Pool check actor'), score: 5 });
    const written = await state(app.db);
    expect(written.counts).toMatchObject({ users: 2, tensions: 1 });
    expect(written.sequences).not.toEqual(template.sequences);
    await app.close();

    const next = await createTestDatabase();
    opened.push(next);
    expect(socketOf(next)).toBe(socket); // the same database, reused
    expect(await state(next)).toEqual(template);
  });

  it('is never reused once a file changed its schema: the next file gets a new database without the change', async () => {
    const first = await createTestDatabase();
    const socket = socketOf(first);
    await rows(first, `alter table tensions add column left_behind text`);
    await first.close();

    const next = await createTestDatabase();
    opened.push(next);
    expect(socketOf(next)).not.toBe(socket);
    expect(await rows(next, `select 1 from information_schema.columns where table_name = 'tensions' and column_name = 'left_behind'`)).toEqual([]);
  });

  it('is not reused after a file disabled a trigger or set a database default either', async () => {
    for (const change of [`alter table domain_events disable trigger user`, `alter database postgres set statement_timeout = '1234ms'`]) {
      const first = await createTestDatabase();
      const socket = socketOf(first);
      await rows(first, change);
      await first.close();
      const next = await createTestDatabase();
      expect(socketOf(next), change).not.toBe(socket);
      expect(await rows(next, `select 1 from pg_trigger where tgenabled = 'D'`), change).toEqual([]);
      expect(await rows(next, `select 1 from pg_db_role_setting`), change).toEqual([]);
      await next.close();
    }
  });
});
