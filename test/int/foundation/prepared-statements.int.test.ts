// The hot path's statements are named prepared statements on PostgreSQL (server/persistence/statements.ts):
// one per statement text and connection, still right after the schema changes under them (a newer
// release migrating while this one serves), and none at all with DB_PREPARED_STATEMENTS=false.
// The embedded database never names statements (its socket connections share one session).
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { createTestDatabase, onPostgres } from '../../support/database.js';
import { newActor, newTension } from '../../support/tensions.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** One connection in the pool, so what the app prepared is what this session's view shows. */
async function oneConnectionApp(preparedStatements?: boolean) {
  app = await startTestApp({}, {}, await createTestDatabase({ poolMax: 1, preparedStatements }));
  const agent = await seedUserWithKey(app, { grants: ['tensions:read', 'tensions:write', 'actors:write', 'events:read'] });
  const api = client(app, agent.key);
  const tension = await newTension(api, { name: 'Prepared', actorId: await newActor(api, 'Org'), score: 1 });
  return { app, api, tension };
}

async function preparedNames(a: TestApp): Promise<string[]> {
  const rows = await a.em().execute<{ name: string }[]>(`select name from pg_prepared_statements where name like 'market\\_%' order by name`);
  return rows.map((r) => r.name);
}

if (!onPostgres) console.info('prepared-statements: skipped on the embedded database, which never names statements');

describe.skipIf(!onPostgres)('prepared statements on PostgreSQL', () => {
  it('prepares each hot-path statement once per connection, whatever the number of requests', async () => {
    const { app: a, api, tension } = await oneConnectionApp();
    expect((await api.post(`/tensions/${tension.id}/rescore`, { score: 2 })).status).toBe(200);
    expect((await api.get(`/events?limit=5`)).status).toBe(200);
    const first = await preparedNames(a);
    // the key lookup, the row read, the write, the feed read
    expect(first.length).toBeGreaterThanOrEqual(4);
    for (let score = 3; score <= 10; score++) {
      const res = await api.post(`/tensions/${tension.id}/rescore`, { score });
      expect(res.status).toBe(200);
      expect(res.body.tension).toMatchObject({ score, version: score });
      expect((await api.get(`/events?limit=5`)).status).toBe(200);
    }
    expect(await preparedNames(a)).toEqual(first);
  });

  it('keeps answering right after a migration adds columns under its prepared statements', async () => {
    const { app: a, api, tension } = await oneConnectionApp();
    expect((await api.post(`/tensions/${tension.id}/rescore`, { score: 2 })).status).toBe(200);
    expect((await preparedNames(a)).length).toBeGreaterThan(0);
    for (const table of ['tensions', 'api_keys', 'users', 'domain_events']) {
      await a.em().execute(`alter table ${table} add column later_release text`);
    }
    const res = await api.post(`/tensions/${tension.id}/rescore`, { score: 3 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.tension).toMatchObject({ id: tension.id, score: 3, version: 3 });
    expect(res.body.event).toMatchObject({ type: 'TensionRescored', version: 3 });
    const read = await api.get(`/tensions/${tension.id}`);
    expect(read.body).toMatchObject({ score: 3, version: 3 });
    // The feed shows only events below this database's oldest appending transaction in flight, so a commit
    // may become visible a moment later: long-poll until it is.
    let types: string[] = [];
    for (let i = 0; i < 20 && !types.includes('TensionRescored'); i++) {
      const feed = await api.get(`/events?limit=10&wait=1`);
      expect(feed.status).toBe(200);
      types = feed.body.data.map((e: { type: string }) => e.type);
      if (!types.includes('TensionRescored')) await new Promise((r) => setTimeout(r, 100));
    }
    expect(types).toContain('TensionRescored');
  });

  it('a refused command rolling back its transaction leaves the connection usable', async () => {
    const { app: a, api, tension } = await oneConnectionApp();
    expect((await api.post(`/tensions/${tension.id}/rescore`, { score: 2 })).status).toBe(200);
    // A reassignment looks its actor up in a transaction; an unknown actor rolls it back.
    const refused = await api.post(`/tensions/${tension.id}/reassign`, { actorId: '00000000-0000-4000-8000-000000000000' });
    expect(refused.status).toBe(404);
    expect(refused.body.code).toBe('actor_not_found');
    const stale = await api.post(`/tensions/${tension.id}/rescore`, { score: 5, expectedVersion: 1 });
    expect(stale.status).toBe(409);
    const res = await api.post(`/tensions/${tension.id}/rescore`, { score: 4 });
    expect(res.status).toBe(200);
    expect(res.body.tension).toMatchObject({ score: 4, version: 3 });
    expect((await preparedNames(a)).length).toBeGreaterThan(0);
  });

  it('with DB_PREPARED_STATEMENTS=false, serves the same and prepares nothing', async () => {
    const { app: a, api, tension } = await oneConnectionApp(false);
    for (let score = 2; score <= 4; score++) {
      const res = await api.post(`/tensions/${tension.id}/rescore`, { score });
      expect(res.status).toBe(200);
      expect(res.body.tension).toMatchObject({ score, version: score });
    }
    expect((await api.get(`/events?limit=5`)).status).toBe(200);
    expect(await preparedNames(a)).toEqual([]);
  });
});
