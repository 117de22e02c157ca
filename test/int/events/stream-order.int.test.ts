// Each tension's events reach the feed in version order, whoever appends them (docs/events.md, "The
// guarantee"). The feed orders events by (transaction id, position); a transaction is given its id at its
// first write or row lock, so one that took its id before it read a tension's head (an actor deletion takes
// it locking the actor, then waits on the tensions' rows) could append version n+1 under a smaller id than a
// transaction that committed version n meanwhile: the feed would serve n+1 before n. The store refuses such an
// append (Migration20261129200000) and the deletion runs again under a new id. The overlap needs two
// transactions at once, so it is forced on PostgreSQL only (the embedded database runs one at a time).
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { onPostgres } from '../../support/database.js';
import { feedPage } from '../../support/feed.js';
import { holdTensionRow } from '../../support/row-lock.js';
import { newActor, newTension } from '../../support/tensions.js';
import { FEED_START, feedPageSql, readFeed, type FeedCursor } from '../../../server/persistence/event-store.js';

let app: TestApp;
let agent: SeededUser;
let c: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp();
  agent = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*', 'events:read'] });
  c = client(app, agent.key);
});
afterAll(async () => {
  await app?.close();
});

/** The stream's versions as the feed serves them, filtered by the stream and unfiltered. */
async function feedVersions(streamId: string): Promise<{ filtered: number[]; global: number[] }> {
  const filtered = (await feedPage(app, agent.key, { streamId, limit: 100 })).data.map((e) => e.version);
  const global: number[] = [];
  for (let after: string | undefined, page; (page = await feedPage(app, agent.key, { after, limit: 1000 })).data.length > 0; after = page.nextCursor) {
    global.push(...page.data.filter((e) => e.streamId === streamId).map((e) => e.version));
  }
  return { filtered, global };
}

describe('each tension in version order in the feed', () => {
  it('the store refuses an append under a smaller transaction id than its previous version, and takes the same or a larger one', async () => {
    const stream = randomUUID();
    // ids as a transaction would be given them, forged at the edge where they gain a digit (never compared as text)
    const append = (version: number, tid: string) =>
      app.em().execute(
        `insert into domain_events (id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at, transaction_id)
         values (?, 'tension', ?, ?, 'TensionRenamed', 1, '{"name":"x"}', '{"via":"cli","actorKind":"system"}', now(), ?::text::xid8)`,
        [randomUUID(), stream, version, tid],
      );
    await append(1, '100000');
    await expect(append(2, '99999')).rejects.toMatchObject({ code: '40001' });
    await append(2, '100000'); // one transaction appending two versions
    await append(3, '100001');
    const stored = await app
      .em()
      .execute<{ version: number; tid: string }[]>(`select version, transaction_id::text as tid from domain_events where stream_id = ? order by version`, [
        stream,
      ]);
    expect(stored).toEqual([
      { version: 1, tid: '100000' },
      { version: 2, tid: '100000' },
      { version: 3, tid: '100001' },
    ]);
  });

  it.skipIf(!onPostgres)('an actor deleted while one of its tensions is rescored: the discard follows the rescore in the feed', async () => {
    const actor = await newActor(c, `Stream order ${randomUUID()}`);
    const ids = [(await newTension(c, { name: 'SO one', actorId: actor })).id, (await newTension(c, { name: 'SO two', actorId: actor })).id].sort();
    const [first, second] = ids;
    // The deletion locks the actor (its transaction is given an id), then the tensions' rows in id order: it
    // waits on the first, held here, while the second is rescored and committed under a later id.
    const held = await holdTensionRow(app.db.url!, first);
    const deletion = c.del(`/actors/${actor}`);
    await held.waitForWaiters(1);
    const rescored = await c.post(`/tensions/${second}/rescore`, { score: 9 });
    expect(rescored.status, JSON.stringify(rescored.body)).toBe(200);
    await held.release();
    const deleted = await deletion;
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);

    const types = await app
      .em()
      .execute<{ version: number; type: string }[]>(`select version, type from domain_events where stream_id = ? order by version`, [second]);
    expect(types.map((e) => e.type)).toEqual(['TensionSensed', 'TensionRescored', 'TensionDiscarded']);
    expect(await feedVersions(second)).toEqual({ filtered: [1, 2, 3], global: [1, 2, 3] });
    expect(await feedVersions(first)).toEqual({ filtered: [1, 2], global: [1, 2] });
  });

  it("a stream's page from any cursor is the feed's next events of that stream, of each stream type with its id", async () => {
    const actor = await newActor(c, `Stream pages ${randomUUID()}`);
    const stream = (await newTension(c, { name: 'SP 1', actorId: actor })).id;
    const other = (await newTension(c, { name: 'SP other', actorId: actor })).id;
    // 130 versions (the binary search's edges: 9 → 10, 99 → 100, 127 → 128), another stream's events between
    for (let v = 2; v <= 130; v++) {
      const res = await c.post(`/tensions/${v % 2 ? stream : other}/${v % 3 ? 'rename' : 'rescore'}`, v % 3 ? { name: `SP ${v}` } : { score: 1 + (v % 10) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      if (v % 2) continue;
      const again = await c.post(`/tensions/${stream}/rename`, { name: `SP ${v} again` });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
    }
    // the same id as a stream of another type, written in two transactions (a later one, then more)
    for (let v = 1; v <= 3; v++) {
      await app.em().execute(
        `insert into domain_events (id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
           values (?, 'zz-other', ?, ?, 'Noted', 1, '{}', '{"via":"cli","actorKind":"system"}', now())`,
        [randomUUID(), stream, v],
      );
    }
    const all = (await readFeed(app.em(), FEED_START, 100_000)).events;
    const mine = all.filter((e) => e.streamId === stream);
    expect(mine.filter((e) => e.streamType === 'tension').map((e) => e.version)).toEqual(Array.from({ length: mine.length - 3 }, (_, i) => i + 1));
    expect(mine.length).toBeGreaterThan(130);
    const after = (cur: FeedCursor) =>
      mine.filter((e) => BigInt(e.transactionId) > BigInt(cur.transactionId) || (e.transactionId === cur.transactionId && e.position > cur.position));
    const cursors = fc.oneof(
      fc.constant(FEED_START),
      fc.constantFrom(...all).map((e) => ({ transactionId: e.transactionId, position: e.position })),
      fc.constantFrom(...all).map((e) => ({ transactionId: e.transactionId, position: e.position - 1 })),
    );
    await fc.assert(
      fc.asyncProperty(cursors, fc.integer({ min: 1, max: 9 }), async (cursor, limit) => {
        const page = await readFeed(app.em(), cursor, limit, { streamId: stream });
        expect(page.events.map((e) => e.id)).toEqual(
          after(cursor)
            .slice(0, limit)
            .map((e) => e.id),
        );
      }),
      { numRuns: 150 },
    );
    // followed page by page, with a type filter too, and an id no stream has
    const follow = async (filter: { streamId: string; types?: string[] }) => {
      const seen: string[] = [];
      for (let cur = FEED_START, i = 0; i < 200; i++) {
        const page = await readFeed(app.em(), cur, 7, filter);
        seen.push(...page.events.map((e) => e.id));
        if (page.events.length === 0) break;
        cur = page.next;
      }
      return seen;
    };
    expect(await follow({ streamId: stream })).toEqual(mine.map((e) => e.id));
    expect(await follow({ streamId: stream, types: ['TensionRescored', 'Noted'] })).toEqual(
      mine.filter((e) => e.type === 'TensionRescored' || e.type === 'Noted').map((e) => e.id),
    );
    expect(await follow({ streamId: randomUUID() })).toEqual([]);

    // A late cursor's page reads its page, not the stream up to it: the search lands on the cursor's version,
    // so no event of the stream is read and then filtered out (counted rows, not time). On the other tension,
    // whose id has one stream type: EXPLAIN reports rows removed as an average over a node's loops, rounded.
    interface Node {
      'Relation Name'?: string;
      'Rows Removed by Filter'?: number;
      'Actual Loops'?: number;
      Plans?: Node[];
    }
    const removed = (n: Node): number =>
      (n['Relation Name'] === 'domain_events' ? (n['Rows Removed by Filter'] ?? 0) * (n['Actual Loops'] ?? 1) : 0) +
      (n.Plans ?? []).reduce((sum, child) => sum + removed(child), 0);
    const [{ h }] = await app.em().execute<{ h: string }[]>('select market_feed_horizon()::text as h');
    const theirs = all.filter((e) => e.streamId === other);
    expect(theirs.length).toBeGreaterThan(60);
    const late = theirs[50];
    const { sql, params } = feedPageSql(h, { transactionId: late.transactionId, position: late.position }, 5, { streamId: other });
    const [explained] = await app.em().execute<{ 'QUERY PLAN': [{ Plan: Node }] }[]>(`explain (analyze, format json) ${sql}`, params);
    expect(removed(explained['QUERY PLAN'][0].Plan)).toBe(0);
  });
});
