// The move to sequence positions and transaction ids (issue 18) on a database that already has events:
// nothing lost or reordered, new events after the old ones, the table still append-only.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEED_START, readFeed, type EventMetadata } from '../../../server/persistence/event-store.js';
import { appendToStream } from '../../support/append.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { migrator as loadMigrator } from '../../../server/persistence/database.js';

const MIGRATION = 'Migration20261123200000_concurrent_appends';
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

let db: TestDatabase;
const em = () => db.orm.em.fork();
const exists = async (name: string) => (await em().execute(`select to_regclass(?) is not null as e`, [name]))[0].e as boolean;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

/** Appends the way the first release did: positions from the head row, gap-free. */
async function oldAppend(streamId: string, version: number, type: string) {
  await em().transactional(async (tx) => {
    const [head] = await tx.execute('update domain_event_head set position = position + 1 returning position');
    await tx.execute(
      `insert into domain_events (position, id, stream_type, stream_id, version, type, data, metadata, occurred_at)
       values (?, ?, 'tension', ?, ?, ?, '{}', '{}', now())`,
      [head.position, randomUUID(), streamId, version, type],
    );
  });
}

describe(MIGRATION, () => {
  it('keeps every existing event in its order, ahead of new ones, and the table append-only', async () => {
    // the shipped list: this database was cloned from the run's migrated template, so migrate() loaded nothing
    const migrator = await loadMigrator(db.orm);
    // back to just before this migration (later ones, if any, go first), then forward through it alone
    await migrator.down({ to: MIGRATION });
    expect(await exists('domain_event_head')).toBe(true);

    // Old streams, interleaved, as the first release wrote them.
    const a = randomUUID();
    const b = randomUUID();
    const old = [
      [a, 1, 'TensionSensed'],
      [b, 1, 'TensionSensed'],
      [a, 2, 'TensionRenamed'],
      [b, 2, 'TensionResolved'],
      [a, 3, 'TensionRescored'],
    ] as const;
    for (const [s, v, t] of old) await oldAppend(s, v, t);
    const before: { position: string; stream_id: string; version: number }[] = await em().execute(
      'select position::text, stream_id, version from domain_events order by position',
    );

    expect((await migrator.up({ to: MIGRATION })).map((m) => m.name)).toEqual([MIGRATION]);
    expect(await exists('domain_event_head')).toBe(false);
    const after: { position: string; stream_id: string; version: number; transaction_id: string }[] = await em().execute(
      'select position::text, stream_id, version, transaction_id::text from domain_events order by position',
    );
    expect(after.map(({ transaction_id: _transactionId, ...rest }) => rest)).toEqual(before);
    expect(new Set(after.map((r) => r.transaction_id))).toEqual(new Set(['0']));
    // the rest of the migrations, which the code of today reads the feed with (market_feed_horizon)
    await migrator.up();

    // A new append continues after the old positions and reads after every old event.
    const [fresh] = await em().transactional((tx) =>
      appendToStream(tx, { type: 'tension', id: a }, 3, [{ type: 'TensionDropped', data: {} }], meta, { newId: randomUUID, occurredAt: new Date() }),
    );
    expect(fresh.position).toBeGreaterThan(Number(before[before.length - 1].position));
    let feed: { streamId: string; version: number }[] = [];
    for (const deadline = Date.now() + 15_000; feed.length < old.length + 1 && Date.now() < deadline;) {
      feed = (await readFeed(em(), FEED_START, 100)).events;
      if (feed.length < old.length + 1) await new Promise((r) => setTimeout(r, 50));
    }
    expect(feed.map((e) => [e.streamId, e.version])).toEqual([...old.map(([s, v]) => [s, v]), [a, 4]]);

    await expect(em().execute(`update domain_events set type = 'X' where stream_id = ?`, [a])).rejects.toThrow(/append-only/);
    await expect(em().execute(`delete from domain_events where stream_id = ?`, [b])).rejects.toThrow(/append-only/);
    expect(await em().execute('select count(*)::int as n from domain_events')).toEqual([{ n: old.length + 1 }]);
  });
});
