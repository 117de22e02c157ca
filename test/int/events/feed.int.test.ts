// SPEC §10: GET /api/v1/events — every committed event once, in feed order, each stream in version
// order; opaque cursors, `after=now`, filters, the long poll, and the refusals (400, 403).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { onPostgres } from '../../support/database.js';
import { newActor, newTension } from '../../support/tensions.js';
import { expectEachStreamInOrder, feedPage, untilWaiting, type FeedEventJson } from '../../support/feed.js';
import { encodeCursor } from '../../../server/application/paging.js';

let app: TestApp;
let writer: SeededUser;
let reader: SeededUser;
let c: ReturnType<typeof client>;
let actorId: string;

beforeAll(async () => {
  app = await startTestApp();
  writer = await seedUserWithKey(app, { grants: ['tensions:*', 'actors:*'] });
  reader = await seedUserWithKey(app, { grants: ['events:read'] });
  c = client(app, writer.key);
  actorId = await newActor(c, 'Feed org');
});
afterAll(async () => {
  await app?.close();
});

/** Follows nextCursor until a page comes back empty; returns everything seen and where it stopped. */
async function drain(after?: string, query: Record<string, string | number> = {}) {
  const seen: FeedEventJson[] = [];
  let cursor = after;
  for (;;) {
    const page = await feedPage(app, reader.key, { ...query, after: cursor, limit: query.limit ?? 50 });
    expect(page.nextCursor).toEqual(expect.any(String));
    cursor = page.nextCursor;
    if (page.data.length === 0) return { seen, cursor };
    seen.push(...page.data);
  }
}

/**
 * `drain` again until `enough` holds: the horizon waits for every appending transaction of this database in
 * flight (the relay's, the housekeeping's), so an event just committed may become visible a moment later.
 */
async function drainUntil(after: string | undefined, query: Record<string, string | number>, enough: (seen: FeedEventJson[]) => boolean) {
  for (let i = 0; ; i++) {
    const drained = await drain(after, query);
    if (enough(drained.seen) || i >= 150) return drained;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('GET /events', () => {
  it('answers every event in feed order with the contract shape, metadata without apiKeyId; nextCursor always present', async () => {
    const t = await newTension(c, { name: 'Shape', actorId, score: 3 });
    expect((await c.post(`/tensions/${t.id}/rescore`, { score: 4 })).status).toBe(200);
    const { seen, cursor } = await drainUntil(undefined, {}, (events) => events.filter((e) => e.streamId === t.id).length >= 2);
    const mine = seen.filter((e) => e.streamId === t.id);
    expect(mine.map((e) => [e.type, e.version])).toEqual([
      ['TensionSensed', 1],
      ['TensionRescored', 2],
    ]);
    const e = mine[1];
    expect(Object.keys(e).sort()).toEqual(['data', 'id', 'metadata', 'occurredAt', 'position', 'schemaVersion', 'streamId', 'streamType', 'type', 'version']);
    expect(e).toMatchObject({ streamType: 'tension', schemaVersion: 1, data: { score: 4, previousScore: 3 } });
    expect(e.metadata).toMatchObject({ via: 'rest', actorKind: 'agent', userId: writer.userId, apiKeyName: expect.any(String) });
    expect(e.metadata).not.toHaveProperty('apiKeyId');
    // an empty page still names where to resume, and resuming there answers nothing new
    const again = await feedPage(app, reader.key, { after: cursor });
    expect(again.data).toEqual([]);
    expect(again.nextCursor).toEqual(expect.any(String));
  });

  it('after=now answers only what comes next; types and streamId filter; the cursor moves over what they skip', async () => {
    const now = (await feedPage(app, reader.key, { after: 'now' })).nextCursor;
    const a = await newTension(c, { name: 'A', actorId });
    const b = await newTension(c, { name: 'B', actorId });
    await c.post(`/tensions/${a.id}/rename`, { name: 'A2' });
    await c.post(`/tensions/${b.id}/resolve`);
    // Only this test's streams: an event committed before `now` by a transaction below the horizon may
    // become visible after it.
    const ours = (events: FeedEventJson[]) => events.filter((e) => e.streamId === a.id || e.streamId === b.id);
    expect(ours((await drainUntil(now, {}, (events) => ours(events).length >= 4)).seen).map((e) => `${e.streamId === a.id ? 'a' : 'b'}:${e.type}`)).toEqual([
      'a:TensionSensed',
      'b:TensionSensed',
      'a:TensionRenamed',
      'b:TensionResolved',
    ]);
    expect(ours((await drain(now, { types: 'TensionRenamed,TensionResolved' })).seen).map((e) => e.type)).toEqual(['TensionRenamed', 'TensionResolved']);
    expect((await drain(now, { streamId: b.id })).seen.map((e) => e.type)).toEqual(['TensionSensed', 'TensionResolved']);
    // a filtered page that found nothing still moves the cursor to the end of what is visible
    const skipped = await feedPage(app, reader.key, { after: now, types: 'TensionDiscarded' });
    expect(ours(skipped.data)).toEqual([]);
    expect(ours((await feedPage(app, reader.key, { after: skipped.nextCursor })).data)).toEqual([]);
  });

  it('refuses bad cursors, limits, types, stream ids and waits with 400 validation_failed naming the field, before any query', async () => {
    const forged = encodeCursor({ sessionSecret: 'another-secret-that-is-long-enough-0123456789' }, 'events', { t: '1', p: 1 });
    const otherList = encodeCursor(app.deps, 'tensions', { t: '1', p: 1 });
    const cases: [Record<string, string>, string][] = [
      [{ after: 'abc' }, 'after'],
      [{ after: forged }, 'after'],
      [{ after: otherList }, 'after'],
      [{ after: encodeCursor(app.deps, 'events', { t: '18446744073709551616', p: 1 }) }, 'after'],
      [{ after: encodeCursor(app.deps, 'events', { t: '-1', p: 1 }) }, 'after'],
      [{ after: encodeCursor(app.deps, 'events', { t: '1e5', p: 1 }) }, 'after'],
      [{ after: encodeCursor(app.deps, 'events', { t: '1', p: -1 }) }, 'after'],
      [{ after: encodeCursor(app.deps, 'events', { t: "1'; select 1; --", p: 1 }) }, 'after'],
      [{ limit: '0' }, 'limit'],
      [{ limit: '1001' }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ types: 'TensionSensed,NoSuchEvent' }, 'types.1'],
      [{ types: '"; drop table x' }, 'types.0'],
      [{ streamId: 'not-a-uuid' }, 'streamId'],
      [{ wait: '31' }, 'wait'],
      [{ wait: '-1' }, 'wait'],
      [{ wait: 'soon' }, 'wait'],
    ];
    for (const [query, path] of cases) {
      const res = await fetch(`${app.url}/api/v1/events?${new URLSearchParams(query)}`, { headers: { authorization: `Bearer ${reader.key}` } });
      const body = await res.json();
      expect([res.status, body.code], JSON.stringify(query)).toEqual([400, 'validation_failed']);
      expect(
        body.errors.map((e: { path: string }) => e.path),
        JSON.stringify(query),
      ).toContain(path);
      expect(JSON.stringify(body)).not.toMatch(/select|xid8|postgres|syntax/i);
    }
    // a genuine cursor and the limits' edges are fine
    for (const query of [{ limit: '1' }, { limit: '1000' }, { wait: '0' }]) expect((await feedPage(app, reader.key, query)).nextCursor).toBeTruthy();
  });

  it('needs events:read', async () => {
    const noRead = await seedUserWithKey(app, { grants: ['tensions:read'] });
    const res = await client(app, noRead.key).get('/events');
    expect([res.status, res.body.code, res.body.missingPermission]).toEqual([403, 'forbidden', 'events:read']);
    expect((await client(app).get('/events')).status).toBe(401);
  });

  it('a long poll returns as soon as an event commits (woken, not timed out), and an empty page when the time is up', async () => {
    const now = (await feedPage(app, reader.key, { after: 'now' })).nextCursor;
    const polling = feedPage(app, reader.key, { after: now, wait: 30 });
    // the poll is parked in the hub (not a query loop) before the write
    await untilWaiting(app, polling);
    const t = await newTension(c, { name: 'Wakes the poll', actorId });
    let page = await polling;
    // (on a busy cluster an older commit may become visible first: keep following until ours arrives)
    for (let i = 0; i < 5 && !page.data.some((e) => e.streamId === t.id); i++) page = await feedPage(app, reader.key, { after: page.nextCursor, wait: 30 });
    expect(page.data.map((e) => e.streamId)).toContain(t.id);
    // nothing comes: the poll answers an empty page with a cursor after the wait
    const quiet = await feedPage(app, reader.key, { after: page.nextCursor, wait: 1 });
    expect(quiet.data.filter((e) => e.streamId === t.id)).toEqual([]);
    expect(quiet.nextCursor).toEqual(expect.any(String));
  });

  it('a long poll filtered by type sleeps through other events and wakes on its own', async () => {
    const t = await newTension(c, { name: 'Filtered poll', actorId });
    const now = (await feedPage(app, reader.key, { after: 'now' })).nextCursor;
    const polling = feedPage(app, reader.key, { after: now, wait: 30, types: 'TensionResolved' });
    await untilWaiting(app, polling, { types: ['TensionResolved'] });
    await c.post(`/tensions/${t.id}/rename`, { name: 'Not this one' });
    await c.post(`/tensions/${t.id}/resolve`);
    expect((await polling).data.filter((e) => e.streamId === t.id).map((e) => e.type)).toEqual(['TensionResolved']);
  });

  // 23 s on the embedded database of a quiet machine: more than 30 s on a loaded one
  it(
    'a follower of nextCursor gets every event exactly once, each stream in version order, while 8 writers append to 50 tensions',
    { timeout: 90_000 },
    async () => {
      const start = (await feedPage(app, reader.key, { after: 'now' })).nextCursor;
      const ids: string[] = [];
      for (let i = 0; i < 50; i++) ids.push((await newTension(c, { name: `Load ${i}`, actorId, score: 1 })).id);
      let writing = true;
      const seen: FeedEventJson[] = [];
      const follower = (async () => {
        let cursor = start;
        for (let idle = 0; idle < 2;) {
          const page = await feedPage(app, reader.key, { after: cursor, limit: 37, wait: writing ? 1 : 0 });
          seen.push(...page.data);
          cursor = page.nextCursor;
          if (!writing && page.data.length === 0) idle++;
        }
      })();
      await Promise.all(
        Array.from({ length: 8 }, async (_, w) => {
          for (let n = 0; n < 25; n++) {
            const id = ids[(w * 7 + n * 3) % ids.length];
            const res = await c.post(`/tensions/${id}/rescore`, { score: 1 + ((w + n) % 10) });
            expect([200, 409]).toContain(res.status);
          }
        }),
      );
      writing = false;
      await follower;
      const [{ n }] = await app.em().execute(`select count(*)::int as n from domain_events where stream_id = any(?::uuid[])`, [`{${ids.join(',')}}`]);
      const mine = seen.filter((e) => ids.includes(e.streamId));
      expect(new Set(seen.map((e) => e.id)).size, 'no event twice').toBe(seen.length);
      expect(mine.length, 'every event of the 50 tensions').toBe(n);
      expectEachStreamInOrder(mine);
    },
  );

  it.skipIf(!onPostgres)(
    'a transaction held open while later ones commit: no follower sees the later events first, none skips the held one',
    async () => {
      // PostgreSQL only: the embedded database runs one transaction at a time, so nothing can be held open across others.
      const start = (await feedPage(app, reader.key, { after: 'now' })).nextCursor;
      const held = new pg.Client({ connectionString: app.db.url });
      await held.connect();
      // Ended when the test ends, also by its timeout: a held transaction left open would hold back the horizon of
      // every later test in this file (a slow CI run turned one timeout into four failures).
      let ended: Promise<void> | undefined;
      const endHeld = () => (ended ??= held.end().catch(() => undefined));
      onTestFinished(endHeld);
      const heldStream = randomUUID();
      try {
        await held.query('begin');
        // A lower transaction id than every write below, committed last. (Straight into the store: a stream without a projection row is enough here.)
        await held.query(
          `insert into domain_events (id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
         values ($1, 'tension', $2, 1, 'TensionSensed', 1, '{}', '{"via":"cli","actorKind":"system"}', now())`,
          [randomUUID(), heldStream],
        );
        const later: string[] = [];
        for (let i = 0; i < 3; i++) later.push((await newTension(c, { name: `Later ${i}`, actorId })).id);
        // committed, but above the held transaction: invisible, and the cursor does not move past them
        const blocked = await feedPage(app, reader.key, { after: start });
        expect(blocked.data.filter((e) => later.includes(e.streamId))).toEqual([]);
        // a long poll from there wakes only once the held one commits, and sees it first
        const polling = feedPage(app, reader.key, { after: blocked.nextCursor, wait: 30 });
        await untilWaiting(app, polling);
        await held.query('commit');
        const woken = await polling;
        const seen = woken.data;
        let cursor = woken.nextCursor;
        for (;;) {
          const page = await feedPage(app, reader.key, { after: cursor });
          if (!page.data.length) break;
          seen.push(...page.data);
          cursor = page.nextCursor;
        }
        // (filtered to this test's streams)
        expect(seen.map((e) => e.streamId).filter((id) => id === heldStream || later.includes(id))).toEqual([heldStream, ...later]);
      } finally {
        await endHeld();
      }
    },
    90_000,
  );
});

describe("the horizon is this database's own (SPEC §10)", () => {
  const horizonOf = async (x0: string, held: string[]) => {
    const [row] = await app.em().execute<{ h: string }[]>(`select market_feed_horizon_of(?::bigint, ?::bigint[])::text as h`, [x0, `{${held.join(',')}}`]);
    return row.h;
  };

  it("widens each holder's 32-bit id exactly, across an epoch, and ignores holders given an id after the reader's snapshot", async () => {
    expect(await horizonOf('100', [])).toBe('100');
    expect(await horizonOf('100', ['90', '99'])).toBe('90');
    expect(await horizonOf('100', ['100'])).toBe('100');
    // given its id after the snapshot (x0 = 100): it cannot hold the horizon below 100, and must not wrap it above everything
    expect(await horizonOf('100', ['105'])).toBe('100');
    expect(await horizonOf('100', ['105', '97'])).toBe('97');
    // x0 in the second epoch (2^32 + 5): a holder from the end of the first epoch, one from this epoch, one after x0
    expect(await horizonOf('4294967301', ['4294967293'])).toBe('4294967293');
    expect(await horizonOf('4294967301', ['3'])).toBe('4294967299');
    expect(await horizonOf('4294967301', ['7'])).toBe('4294967301');
    // the oldest a transaction in flight can be: 2^31 - 1 behind the next id
    expect(await horizonOf('4294967301', ['2147483654'])).toBe('2147483654');
  });

  it.skipIf(!onPostgres)("a writer given its id after the reader's snapshot does not lift the horizon above the ids in flight", async () => {
    // The reader's snapshot is fixed first (repeatable read: every statement of the function uses it), then a
    // writer takes the feed lock and an id: exactly the interleaving a busy server produces between the
    // function's snapshot and its read of pg_locks.
    const reader_ = new pg.Client({ connectionString: app.db.url });
    const writer_ = new pg.Client({ connectionString: app.db.url });
    await Promise.all([reader_.connect(), writer_.connect()]);
    try {
      await reader_.query('begin isolation level repeatable read');
      const {
        rows: [{ x0 }],
      } = await reader_.query<{ x0: string }>('select pg_snapshot_xmax(pg_current_snapshot())::text as x0');
      await writer_.query('select pg_current_xact_id()'); // another transaction is given the id x0 meanwhile
      await writer_.query('begin');
      await writer_.query('select market_feed_lock()');
      const {
        rows: [{ xid }],
      } = await writer_.query<{ xid: string }>('select pg_current_xact_id()::text as xid');
      expect(BigInt(xid)).toBeGreaterThan(BigInt(x0));
      const {
        rows: [{ h }],
      } = await reader_.query<{ h: string }>('select market_feed_horizon()::text as h');
      expect(h).toBe(x0);
    } finally {
      await writer_.query('rollback').catch(() => undefined);
      await reader_.query('rollback').catch(() => undefined);
      await Promise.all([reader_.end(), writer_.end()]);
    }
  });

  it.skipIf(!onPostgres)('a transaction held open in another database, or here without appending, holds no follower back', async () => {
    // PostgreSQL only: the embedded database runs one transaction at a time.
    const start = (await feedPage(app, reader.key, { after: 'now' })).nextCursor;
    const elsewhere = new pg.Client({ connectionString: process.env.DATABASE_URL });
    const hereNoAppend = new pg.Client({ connectionString: app.db.url });
    await Promise.all([elsewhere.connect(), hereNoAppend.connect()]);
    try {
      for (const held of [elsewhere, hereNoAppend]) {
        await held.query('begin');
        await held.query('select pg_current_xact_id()'); // an id older than every write below, held open
      }
      const t = await newTension(c, { name: 'Not held back', actorId });
      // one page, no waiting: with a server-wide horizon this page would be empty until both ended
      const page = await feedPage(app, reader.key, { after: start });
      expect(page.data.map((e) => e.streamId)).toContain(t.id);
    } finally {
      for (const held of [elsewhere, hereNoAppend]) await held.query('rollback').catch(() => undefined);
      await Promise.all([elsewhere.end(), hereNoAppend.end()]);
    }
  });
});

describe.runIf(onPostgres)('the feed lock', () => {
  async function heldWithId(url: string, work: string): Promise<pg.Client> {
    const held = new pg.Client({ connectionString: url });
    await held.connect();
    await held.query('begin');
    await held.query(work);
    return held;
  }

  it('an append after the transaction already had an id, without the feed lock first, is refused by the database (it could be skipped)', async () => {
    const held = await heldWithId(app.db.url!, 'select pg_current_xact_id()');
    try {
      await expect(
        held.query(
          `insert into domain_events (id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
           values ($1, 'tension', $2, 1, 'TensionSensed', 1, '{}', '{"via":"cli","actorKind":"system"}', now())`,
          [randomUUID(), randomUUID()],
        ),
      ).rejects.toMatchObject({ code: '55000' });
    } finally {
      await held.query('rollback').catch(() => undefined);
      await held.end();
    }
  });
});

describe('wake-ups stay off the write path', () => {
  // PostgreSQL serialises the commits of every transaction that ran NOTIFY, cluster-wide and through the
  // WAL flush: a notifying append would queue every writer behind one lock again (issue 18). The service
  // announces commits after they commit; nothing that runs inside an append may notify.
  it('no trigger on domain_events calls pg_notify, and a long poll still wakes on a commit', async () => {
    const notifying: { tgname: string }[] = await app.em().execute(
      `select t.tgname from pg_trigger t join pg_proc p on p.oid = t.tgfoid
       where t.tgrelid = 'domain_events'::regclass and not t.tgisinternal and p.prosrc ilike '%notify%'`,
    );
    expect(notifying).toEqual([]);
    const now = (await feedPage(app, reader.key, { after: 'now' })).nextCursor;
    const polling = feedPage(app, reader.key, { after: now, wait: 30 });
    await untilWaiting(app, polling);
    const t = await newTension(c, { name: 'Announced after commit', actorId });
    let page = await polling;
    for (let i = 0; i < 5 && !page.data.some((e) => e.streamId === t.id); i++) page = await feedPage(app, reader.key, { after: page.nextCursor, wait: 30 });
    expect(page.data.map((e) => e.streamId)).toContain(t.id);
  });
});
