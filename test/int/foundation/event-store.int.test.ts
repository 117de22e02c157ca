import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityManager } from '@mikro-orm/postgresql';
import { appendToStream, readStream, type EventMetadata } from '../../../server/persistence/event-store.js';
import { VersionConflictError } from '../../../server/domain/errors.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';

const meta: EventMetadata = {
  actorKind: 'system', userId: null, userName: 'system', apiKeyId: null, apiKeyName: null,
  via: 'cli', requestId: null, correlationId: null, causationId: null,
};
const opts = () => ({ newId: randomUUID, occurredAt: new Date() });

let db: TestDatabase;
const em = () => db.orm.em.fork() as EntityManager;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

describe('event store', () => {
  it('appends with contiguous versions and gap-free positions, and reads them back in order', async () => {
    const stream = { type: 'test', id: randomUUID() };
    await em().transactional((tx) => appendToStream(tx, stream, 0, [{ type: 'A', data: { n: 1 } }], meta, opts()));
    await em().transactional((tx) =>
      appendToStream(tx, stream, 1, [{ type: 'B', data: { n: 2 } }, { type: 'C', data: { n: 3 } }], meta, opts()),
    );
    const events = await readStream(em(), stream);
    expect(events.map((e) => [e.version, e.type, e.data.n])).toEqual([[1, 'A', 1], [2, 'B', 2], [3, 'C', 3]]);
    expect(events[0].metadata).toEqual(meta);
    const positions = events.map((e) => e.position);
    expect(positions[1] - positions[0]).toBe(1);
    expect(positions[2] - positions[1]).toBe(1);
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
      [1, 2].map((n) =>
        em().transactional((tx) => appendToStream(tx, stream, 1, [{ type: 'B', data: { writer: n } }], meta, opts())),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0].reason).toBeInstanceOf(VersionConflictError);
    expect((await readStream(em(), stream)).map((e) => e.version)).toEqual([1, 2]);
  });

  it('keeps positions gap-free across a rolled-back append', async () => {
    const stream = { type: 'test', id: randomUUID() };
    const [first] = await em().transactional((tx) => appendToStream(tx, stream, 0, [{ type: 'A', data: {} }], meta, opts()));
    await em()
      .transactional(async (tx) => {
        await appendToStream(tx, stream, 1, [{ type: 'B', data: {} }], meta, opts());
        throw new Error('abort');
      })
      .catch(() => undefined);
    const [second] = await em().transactional((tx) => appendToStream(tx, stream, 1, [{ type: 'C', data: {} }], meta, opts()));
    expect(second.position).toBe(first.position + 1);
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
