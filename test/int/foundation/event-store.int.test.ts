import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEED_START, readFeed, readStream, type EventMetadata, type FeedCursor } from '../../../server/persistence/event-store.js';
import { appendToStream } from '../../support/append.js';
import { VersionConflictError } from '../../../server/domain/errors.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../../support/database.js';

const meta: EventMetadata = {
  actorKind: 'system',
  userId: null,
  userName: 'system',
  apiKeyId: null,
  apiKeyName: null,
  via: 'cli',
  requestId: null,
  correlationId: null,
  causationId: null,
};
const opts = () => ({ newId: randomUUID, occurredAt: new Date() });

let db: TestDatabase;
const em = () => db.orm.em.fork();

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

describe('event store', () => {
  it('appends with contiguous versions and increasing positions, and reads them back in order', async () => {
    const stream = { type: 'test', id: randomUUID() };
    await em().transactional((tx) => appendToStream(tx, stream, 0, [{ type: 'A', data: { n: 1 } }], meta, opts()));
    await em().transactional((tx) =>
      appendToStream(
        tx,
        stream,
        1,
        [
          { type: 'B', data: { n: 2 } },
          { type: 'C', data: { n: 3 } },
        ],
        meta,
        opts(),
      ),
    );
    const events = await readStream(em(), stream);
    expect(events.map((e) => [e.version, e.type, e.data.n])).toEqual([
      [1, 'A', 1],
      [2, 'B', 2],
      [3, 'C', 3],
    ]);
    expect(events[0].metadata).toEqual(meta);
    const positions = events.map((e) => e.position);
    expect(positions[1]).toBeGreaterThan(positions[0]);
    expect(positions[2]).toBeGreaterThan(positions[1]);
    const back = await readStream(em(), stream, { direction: 'backward', before: 3, limit: 1 });
    expect(back.map((e) => e.version)).toEqual([2]);
  });

  it('refuses an append at a stale expected version with the current head', async () => {
    const stream = { type: 'test', id: randomUUID() };
    await em().transactional((tx) => appendToStream(tx, stream, 0, [{ type: 'A', data: {} }], meta, opts()));
    const err = await em()
      .transactional((tx) => appendToStream(tx, stream, 0, [{ type: 'A', data: {} }], meta, opts()))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VersionConflictError);
    expect((err as VersionConflictError).currentVersion).toBe(1);
    expect((await readStream(em(), stream)).length).toBe(1);
  });

  it('lets exactly one of two concurrent transactions append at the same version', async () => {
    const stream = { type: 'test', id: randomUUID() };
    await em().transactional((tx) => appendToStream(tx, stream, 0, [{ type: 'A', data: {} }], meta, opts()));
    const results = await Promise.allSettled(
      [1, 2].map((n) => em().transactional((tx) => appendToStream(tx, stream, 1, [{ type: 'B', data: { writer: n } }], meta, opts()))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0].reason).toBeInstanceOf(VersionConflictError);
    expect((await readStream(em(), stream)).map((e) => e.version)).toEqual([1, 2]);
  });

  it.runIf(onPostgres)('reports a writer that meets one still in flight at the same version as a conflict, once that one commits', async () => {
    const stream = { type: 'test', id: randomUUID() };
    await em().transactional((tx) => appendToStream(tx, stream, 0, [{ type: 'A', data: {} }], meta, opts()));
    let release!: () => void;
    let appended!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const firstAppended = new Promise<void>((r) => (appended = r));
    const first = em().transactional(async (tx) => {
      await appendToStream(tx, stream, 1, [{ type: 'B', data: { writer: 1 } }], meta, opts());
      appended();
      await released;
    });
    try {
      await firstAppended;
      const second = em()
        .transactional((tx) => appendToStream(tx, stream, 1, [{ type: 'B', data: { writer: 2 } }], meta, opts()))
        .catch((e: unknown) => e);
      await waitForLockWait();
      release();
      await first;
      const err = await second;
      expect(err).toBeInstanceOf(VersionConflictError);
      expect((err as VersionConflictError).currentVersion).toBe(2);
    } finally {
      release();
    }
    expect((await readStream(em(), stream)).map((e) => e.data.writer ?? null)).toEqual([null, 1]);
  });

  it('refuses updates and deletes of domain_events at the database', async () => {
    const stream = { type: 'test', id: randomUUID() };
    await em().transactional((tx) => appendToStream(tx, stream, 0, [{ type: 'A', data: {} }], meta, opts()));
    await expect(em().execute(`update domain_events set type = 'X' where stream_id = ?`, [stream.id])).rejects.toThrow(/append-only/);
    await expect(em().execute(`delete from domain_events where stream_id = ?`, [stream.id])).rejects.toThrow(/append-only/);
    await expect(em().execute(`truncate domain_events`)).rejects.toThrow(/append-only/);
    expect((await readStream(em(), stream)).map((e) => e.type)).toEqual(['A']);
  });
});

/** Resolves once some session of this database waits on a lock (the second writer, behind the first). */
async function waitForLockWait() {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    const [{ n }] = await em().execute(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
    if (n > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no writer ever waited on a lock');
}

/**
 * Follows the feed from `cursor` until nothing more is visible and at least `atLeast` events came.
 * Another appending transaction of this database in flight holds the feed's horizon back for a moment,
 * so a reader waiting for committed events polls.
 */
async function drain(cursor: FeedCursor, atLeast = 0, streams?: string[]) {
  const seen: { streamId: string; type: string; position: number; transactionId: string }[] = [];
  for (const deadline = Date.now() + 15_000; ;) {
    const page = await readFeed(em(), cursor, 3);
    seen.push(...page.events.filter((e) => !streams || streams.includes(e.streamId)));
    cursor = page.next;
    if (page.events.length === 3) continue;
    if (seen.length >= atLeast || Date.now() > deadline) return { seen, cursor };
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the global feed (readFeed)', () => {
  it('pages through every event once, in (transaction id, position) order, and resumes from its cursor', async () => {
    const stream = { type: 'feed', id: randomUUID() };
    const start = await drain(FEED_START);
    for (let v = 0; v < 7; v++) await em().transactional((tx) => appendToStream(tx, stream, v, [{ type: `E${v}`, data: {} }], meta, opts()));
    const { seen, cursor } = await drain(start.cursor, 7, [stream.id]);
    expect(seen.map((e) => e.type)).toEqual(['E0', 'E1', 'E2', 'E3', 'E4', 'E5', 'E6']);
    const keys = seen.map((e) => [BigInt(e.transactionId), e.position] as const);
    for (let i = 1; i < keys.length; i++) expect(keys[i][0] > keys[i - 1][0] || (keys[i][0] === keys[i - 1][0] && keys[i][1] > keys[i - 1][1])).toBe(true);
    expect((await readFeed(em(), cursor, 10)).events).toEqual([]);
    expect((await readFeed(em(), cursor, 10)).next).toEqual(cursor);
  });

  it("never shows a transaction's events to a reader before it commits, its own reads included", async () => {
    const stream = { type: 'feed', id: randomUUID() };
    const { cursor } = await drain(FEED_START);
    await em().transactional(async (tx) => {
      await appendToStream(tx, stream, 0, [{ type: 'Mine', data: {} }], meta, opts());
      expect((await readFeed(tx, cursor, 10)).events.filter((e) => e.streamId === stream.id)).toEqual([]);
    });
    expect((await drain(cursor, 1, [stream.id])).seen.map((e) => e.type)).toEqual(['Mine']);
  });

  // The embedded database serialises transactions (one runs at a time), so a transaction held open
  // there blocks every later one: the late-commit case cannot arise, and is proven on PostgreSQL.
  it.runIf(onPostgres)('never passes a transaction in flight: later commits wait behind it, then all are read, none skipped', async () => {
    const held = { type: 'feed', id: randomUUID() };
    const later = [
      { type: 'feed', id: randomUUID() },
      { type: 'feed', id: randomUUID() },
    ];
    const ids = [held.id, ...later.map((s) => s.id)];
    const { cursor } = await drain(FEED_START);

    let release!: () => void;
    let appended!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const heldAppended = new Promise<void>((r) => (appended = r));
    const holder = em().transactional(async (tx) => {
      await appendToStream(tx, held, 0, [{ type: 'Held', data: {} }], meta, opts());
      appended();
      await released;
    });
    try {
      await heldAppended;
      for (const s of later) await em().transactional((tx) => appendToStream(tx, s, 0, [{ type: 'Later', data: {} }], meta, opts()));

      // Both later events are committed and readable by id …
      const committed: { position: string }[] = await em().execute('select position from domain_events where stream_id = any(?::uuid[])', [
        `{${later.map((s) => s.id).join(',')}}`,
      ]);
      expect(committed).toHaveLength(2);
      // … and the feed shows neither while the held transaction is open: a reader that took them now
      // would move its cursor past the held event and never see it.
      expect((await drain(cursor, 0, ids)).seen).toEqual([]);

      release();
      await holder;
    } finally {
      release();
    }
    const { seen } = await drain(cursor, 3, ids);
    expect(seen.map((e) => [e.streamId, e.type])).toEqual([
      [held.id, 'Held'],
      [later[0].id, 'Later'],
      [later[1].id, 'Later'],
    ]);
  });
});
