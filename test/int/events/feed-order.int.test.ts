// The feed's order when transaction ids gain a digit (issue 29): ids are compared as numbers, never as
// text ("100000" sorts before "97614"), on every face and through the relay; and a property test of the
// store's pages against a reference order computed with BigInt. On PostgreSQL the database lives on a
// private cluster whose transaction ids start just below 10,000,000 (pg_resetwal); on the embedded
// database, cheap transactions burn ids up to just below the next power of ten.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../../support/database.js';
import { feedPage, openSse, type FeedEventJson } from '../../support/feed.js';
import { deleteStream, NATS_URL, natsOrNull, streamMessages, testStream } from '../../support/nats.js';
import { privatePostgresUnavailable, startPrivatePostgres, type PrivatePostgres } from '../../support/private-postgres.js';
import { rpc } from '../../support/raw-http.js';
import { newActor, newTension } from '../../support/tensions.js';
import { migrate, openDatabase } from '../../../server/persistence/database.js';
import { FEED_START, readFeed, type FeedCursor } from '../../../server/persistence/event-store.js';
import { relayName, startNatsRelay } from '../../../server/relay/nats-relay.js';

// 305 × 32,768: the first id of a commit-log page, a few thousand ids below 10,000,000
const PRIVATE_NEXT_XID = 9_994_240;

let cluster: PrivatePostgres | undefined;
let app: TestApp;
let reader: SeededUser;
let c: ReturnType<typeof client>;
/** the power of ten the commands' transaction ids straddle */
let boundary = 0n;

async function openDb(): Promise<TestDatabase | undefined> {
  if (!onPostgres) return createTestDatabase();
  const unavailable = privatePostgresUnavailable();
  if (unavailable) {
    console.warn(`feed-order tests skipped: ${unavailable}`);
    return undefined;
  }
  cluster = await startPrivatePostgres({ max_connections: '40' }, { nextXid: PRIVATE_NEXT_XID });
  const admin = new pg.Client({ connectionString: cluster.url() });
  await admin.connect();
  await admin.query('create database market');
  await admin.end();
  const db = await openDatabase({ databaseUrl: cluster.url('market'), poolMax: 10 });
  await migrate(db.orm);
  return { ...db, url: cluster.url('market') };
}

/** Burns transaction ids (one committed transaction each) until the next one is `to`. */
async function burnUntil(to: bigint): Promise<void> {
  const [{ x }] = await app.em().execute<{ x: string }[]>('select pg_snapshot_xmax(pg_current_snapshot())::text as x');
  const n = Number(to - BigInt(x));
  if (n > 0) await app.em().execute(`do $$ begin for i in 1..${n} loop perform pg_current_xact_id(); commit; end loop; end $$`);
}

const db = await openDb();

beforeAll(async () => {
  if (!db) return;
  app = await startTestApp({}, {}, db);
  reader = await seedUserWithKey(app, { grants: ['events:read', 'tensions:read'] });
  c = client(app, (await seedUserWithKey(app, { grants: ['tensions:*', 'actors:*'] })).key);
  const actorId = await newActor(c, 'Digits org');
  const t = await newTension(c, { name: 'Across the boundary', actorId });
  const [{ x }] = await app.em().execute<{ x: string }[]>('select pg_snapshot_xmax(pg_current_snapshot())::text as x');
  boundary = 10n ** BigInt(x.length); // the next power of ten
  await burnUntil(boundary - 6n);
  // one committed transaction per command: their ids run across the boundary
  for (let i = 0; i < 12; i++) expect((await c.post(`/tensions/${t.id}/rescore`, { score: (i % 9) + 1 })).status).toBe(200);
}, 300_000);

afterAll(async () => {
  await app?.close();
  await cluster?.destroy();
});

interface Ref {
  id: string;
  tid: bigint;
  position: number;
}

/** Every event below the horizon, ordered in JavaScript: transaction id as a BigInt, then position. */
async function referenceOrder(): Promise<Ref[]> {
  const rows = await app
    .em()
    .execute<{ id: string; tid: string; position: string }[]>(
      `select id, transaction_id::text as tid, position::text from domain_events where transaction_id < market_feed_horizon()`,
    );
  return rows
    .map((r) => ({ id: r.id, tid: BigInt(r.tid), position: Number(r.position) }))
    .sort((a, b) => (a.tid !== b.tid ? (a.tid < b.tid ? -1 : 1) : a.position - b.position));
}

describe.skipIf(!db)('the feed across a transaction id that gains a digit', () => {
  it('the commands really straddle the power of ten (the precondition of every test here)', async () => {
    const tids = (await referenceOrder()).map((e) => e.tid);
    expect(
      tids.some((t) => t < boundary),
      `an id below ${boundary}`,
    ).toBe(true);
    expect(
      tids.some((t) => t >= boundary),
      `an id at or above ${boundary}`,
    ).toBe(true);
  });

  it('REST: following nextCursor with pages of 4 from the start returns every event once, in numeric order', async () => {
    const expected = (await referenceOrder()).map((e) => e.id);
    const seen: FeedEventJson[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 100; pages++) {
      const page = await feedPage(app, reader.key, { after: cursor, limit: 4 });
      if (!page.data.length) break;
      seen.push(...page.data);
      cursor = page.nextCursor;
    }
    expect(seen.map((e) => e.id)).toEqual(expected);
  });

  it('GraphQL events and MCP list_events page the same way', async () => {
    const expected = (await referenceOrder()).map((e) => e.id);
    const viaGraphql: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const res = await client(app, reader.key).gql('query($after: String) { events(after: $after, limit: 4) { data { id } nextCursor } }', { after });
      const page = res.body.data.events as { data: { id: string }[]; nextCursor: string };
      if (!page.data.length) break;
      viaGraphql.push(...page.data.map((e) => e.id));
      after = page.nextCursor;
    }
    expect(viaGraphql).toEqual(expected);

    const viaMcp: string[] = [];
    let mcpAfter: string | undefined;
    for (let pages = 0; pages < 100; pages++) {
      const res = await rpc(app, reader.key, 'tools/call', { name: 'list_events', arguments: { limit: 4, ...(mcpAfter ? { after: mcpAfter } : {}) } });
      const page = res.json.result.structuredContent as { data: { id: string }[]; nextCursor: string };
      if (!page.data.length) break;
      viaMcp.push(...page.data.map((e) => e.id));
      mcpAfter = page.nextCursor;
    }
    expect(viaMcp).toEqual(expected);
  });

  it('SSE from the start delivers every event once, in numeric order', async () => {
    const expected = (await referenceOrder()).map((e) => e.id);
    const sse = await openSse(`${app.url}/api/v1/events/stream`, { authorization: `Bearer ${reader.key}` });
    try {
      expect(sse.status).toBe(200);
      await sse.until((m) => m.filter((x) => x.data).length >= expected.length, `${expected.length} events`, 20_000);
      expect(sse.messages.filter((m) => m.data).map((m) => (JSON.parse(m.data!) as FeedEventJson).id)).toEqual(expected);
    } finally {
      sse.close();
    }
  });

  it('the NATS relay, in batches of 4, publishes every event once, in numeric order', async (ctx) => {
    const nats = await natsOrNull();
    if ('reason' in nats) return ctx.skip();
    const { stream, prefix } = testStream();
    const expected = (await referenceOrder()).map((e) => e.id);
    const relay = await startNatsRelay({
      orm: app.db.orm,
      logger: app.deps.logger,
      natsUrl: NATS_URL,
      subjectPrefix: prefix,
      stream,
      leaseMs: 5_000,
      batch: 4,
    });
    try {
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
        const [cp] = await app.em().execute<{ position: string }[]>('select position::text from feed_relays where name = ?', [relayName(stream)]);
        if (cp && (await streamMessages(nats.nc, stream)).length >= expected.length) break;
      }
      // a moment more: anything published past the expected count would be a repeat
      await new Promise((r) => setTimeout(r, 300));
      expect((await streamMessages(nats.nc, stream)).map((m) => m.body.id)).toEqual(expected);
    } finally {
      await relay.stop();
      await deleteStream(nats.nc, stream);
      await nats.nc.close();
    }
  });

  it("property: from any cursor, any page size answers the reference order's next events, and following pages covers it exactly", async () => {
    // More ids that differ in their number of digits, below the horizon: single events, straight into the store.
    const low = [1n, 9n, 10n, 99n, 100n, 999n, 1_000n, 9_999n, 10_000n, 99_999n, 100_000n, 999_999n, 1_000_000n].filter((t) => t < boundary - 100n);
    for (const tid of low) {
      await app.em().execute(
        `insert into domain_events (id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at, transaction_id)
         values (?, 'tension', ?, 1, 'TensionSensed', 1, '{}', '{"via":"cli","actorKind":"system"}', now(), ?::text::xid8)`,
        [randomUUID(), randomUUID(), String(tid)],
      );
    }
    const ref = await referenceOrder();
    const tids = [...new Set(ref.map((e) => e.tid))];
    const after = (cur: FeedCursor) =>
      ref.filter((e) => e.tid > BigInt(cur.transactionId) || (e.tid === BigInt(cur.transactionId) && e.position > cur.position));
    const cursorArb = fc.oneof(
      fc.constant(FEED_START),
      fc.constantFrom(...ref).map((e) => ({ transactionId: String(e.tid), position: e.position })),
      fc.tuple(fc.constantFrom(...tids), fc.integer({ min: -1, max: 1 }), fc.integer({ min: 0, max: 1_000 })).map(([t, d, p]) => ({
        transactionId: String(t + BigInt(d) < 0n ? 0n : t + BigInt(d)),
        position: p,
      })),
    );
    await fc.assert(
      fc.asyncProperty(cursorArb, fc.integer({ min: 1, max: 7 }), async (cursor, limit) => {
        const page = await readFeed(app.em(), cursor, limit);
        expect(page.events.map((e) => e.id)).toEqual(
          after(cursor)
            .slice(0, limit)
            .map((e) => e.id),
        );
      }),
      { numRuns: 150 },
    );
    for (const limit of [1, 2, 3, 5]) {
      const seen: string[] = [];
      let cursor = FEED_START;
      for (let pages = 0; pages < 1_000; pages++) {
        const page = await readFeed(app.em(), cursor, limit);
        if (!page.events.length) break;
        seen.push(...page.events.map((e) => e.id));
        cursor = page.next;
      }
      expect(seen, `pages of ${limit}`).toEqual(ref.map((e) => e.id));
    }
  });
});
