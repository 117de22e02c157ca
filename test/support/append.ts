// Raw appends to any stream, for the tests of the event table's guarantees and of the feed: production
// appends only through a tension command's one statement (writeTensionCommand), which is built on the
// same `eventInsert` and relies on the same unique (stream_type, stream_id, version) index.
import type { EntityManager } from '@mikro-orm/postgresql';
import { VersionConflictError } from '../../server/domain/errors.js';
import {
  eventInsert,
  streamHeadVersion,
  toStoredEvent,
  type AppendOptions,
  type EventMetadata,
  type NewEvent,
  type StoredEvent,
  type StreamRef,
} from '../../server/persistence/event-store.js';

/**
 * Appends `events` to `stream` if its head is `expectedVersion` (0 = the stream must not exist yet);
 * otherwise throws VersionConflictError and the caller's transaction rolls back. Inside the caller's
 * transaction: the version check sees every append committed before the statement, and a writer still in
 * flight at the same version is met by the unique index (wait, then skip: reported as a conflict).
 */
export async function appendToStream(
  tx: EntityManager,
  stream: StreamRef,
  expectedVersion: number,
  events: NewEvent[],
  metadata: EventMetadata,
  opts: AppendOptions,
): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  const insert = eventInsert(stream, expectedVersion, events, metadata, { ...opts, onConflict: 'skip' });
  const rows: Parameters<typeof toStoredEvent>[0][] = await tx.execute(
    `${insert.sql(`where (select coalesce(max(version), 0) from domain_events where stream_type = ? and stream_id = ?) = ?`)} returning *`,
    [...insert.params, stream.type, stream.id, expectedVersion],
  );
  if (rows.length < events.length) {
    throw new VersionConflictError(stream.id, await streamHeadVersion(tx, stream), expectedVersion);
  }
  return rows.map(toStoredEvent);
}
