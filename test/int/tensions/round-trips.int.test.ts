// Database round trips per tension command (issue 18), counted from the statements knex sends for one
// REST request (authentication included). Counts, not timings: each statement is one round trip.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { newActor, newTension } from '../../support/tensions.js';

let app: TestApp;
let admin: SeededUser;
const statements: string[] = [];
let counting = false;

beforeAll(async () => {
  app = await startTestApp();
  admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'], name: 'Round trips' });
  app.deps.orm.em
    .getConnection()
    .getKnex()
    .on('query', (q: { sql: string }) => {
      if (counting) statements.push(q.sql.replace(/\s+/g, ' ').trim().slice(0, 60));
    });
});
afterAll(async () => {
  await app?.close();
});

const ANNOUNCE = "select pg_notify('market_events', '')";

/** The request's statements, and apart from them the feed announcement that follows its commit (not a round trip the caller waits on). */
async function countApart(work: () => Promise<unknown>): Promise<{ seen: string[]; announced: number }> {
  const all = await count(work);
  // This command's announcement (when it falls inside the window) comes after its write, commit included: never
  // inside its transaction. One before the write is an earlier command's, late (coalesced with the one before it,
  // or waiting for a pool connection on a busy machine): not this command's, and not one of its round trips.
  const write = all.findIndex((s) => s.startsWith('with '));
  const commit = all.indexOf('commit;');
  if (commit >= 0) expect(all.slice(write, commit).includes(ANNOUNCE), all.join('\n')).toBe(false);
  const after = all.slice(Math.max(write, commit) + 1);
  return { seen: all.filter((s) => s !== ANNOUNCE), announced: after.filter((s) => s === ANNOUNCE).length };
}

async function count(work: () => Promise<unknown>): Promise<string[]> {
  statements.length = 0;
  counting = true;
  try {
    await work();
  } finally {
    counting = false;
  }
  return [...statements];
}

describe('round trips of one REST command', () => {
  it('a rescore: authentication, read the row, write the row and the event in one statement; no transaction around them', async () => {
    const rest = client(app, admin.key);
    const actorId = await newActor(rest, 'Trips org');
    const tension = await newTension(rest, { name: 'Trips', actorId });
    await rest.post(`/tensions/${tension.id}/rescore`, { score: 6 }); // warm: the key's last-used stamp
    const { seen, announced } = await countApart(async () => expect((await rest.post(`/tensions/${tension.id}/rescore`, { score: 7 })).status).toBe(200));
    expect(announced).toBeLessThanOrEqual(1);
    // 6 before issue 18's first change (update and guarded insert were two statements), 5 with a transaction around them
    expect(seen.length, seen.join('\n')).toBe(3);
    expect(seen[0]).toMatch(/^select .* from api_keys|^select k\./);
    expect(seen.slice(1).map((s) => s.split(' ')[0].toLowerCase())).toEqual(['select', 'with']);
    expect(seen.join('\n')).not.toMatch(/max\(version\)/);
  });

  it('a reassign holds the actor it looked up until its write commits: one transaction, the feed lock first', async () => {
    const rest = client(app, admin.key);
    const actorId = await newActor(rest, 'Trips from');
    const other = await newActor(rest, 'Trips to');
    const tension = await newTension(rest, { name: 'Trips reassigned', actorId });
    const { seen } = await countApart(async () => expect((await rest.post(`/tensions/${tension.id}/reassign`, { actorId: other })).status).toBe(200));
    expect(
      seen.slice(1).map((s) => s.split(' ')[0].toLowerCase()),
      seen.join('\n'),
    ).toEqual(['begin;', 'select', 'select', 'select', 'with', 'commit;']);
    // the feed lock before the actor's row lock gives the transaction its id (issue 30: the feed's horizon)
    expect(seen[2]).toMatch(/^select market_feed_lock\(\)/);
    expect(seen[4]).toMatch(/^select id, name, type from actors/);
  });
});
