// The event store: streams of events in `domain_events`, appended with optimistic concurrency.
import type { EntityManager } from '@mikro-orm/postgresql';
import { VersionConflictError } from '../domain/errors.js';

export interface StreamRef {
  type: string;
  id: string;
}

export interface NewEvent {
  type: string;
  data: Record<string, unknown>;
  schemaVersion?: number;
}

export interface EventMetadata {
  actorKind: 'human' | 'agent' | 'system';
  userId: string | null;
  userName: string | null;
  apiKeyId: string | null;
  apiKeyName: string | null;
  via: 'graphql' | 'rest' | 'mcp' | 'cli';
  requestId: string | null;
  correlationId: string | null;
  causationId: string | null;
}

export interface StoredEvent {
  position: number;
  id: string;
  streamType: string;
  streamId: string;
  version: number;
  type: string;
  schemaVersion: number;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  occurredAt: Date;
}

export interface AppendOptions {
  newId: () => string;
  occurredAt: Date;
}

interface EventRow {
  position: string | number;
  id: string;
  stream_type: string;
  stream_id: string;
  version: number;
  type: string;
  schema_version: number;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  occurred_at: Date | string;
}

export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    position: Number(row.position),
    id: row.id,
    streamType: row.stream_type,
    streamId: row.stream_id,
    version: row.version,
    type: row.type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: row.metadata,
    occurredAt: new Date(row.occurred_at),
  };
}

export async function streamHeadVersion(em: EntityManager, stream: StreamRef): Promise<number> {
  const [row] = await em.execute(
    'select coalesce(max(version), 0)::int as v from domain_events where stream_type = ? and stream_id = ?',
    [stream.type, stream.id],
  );
  return row.v;
}

/**
 * Appends `events` to `stream` if its head is `expectedVersion` (0 = the stream must not exist yet);
 * otherwise throws VersionConflictError and the caller's transaction rolls back.
 *
 * Must run inside the caller's transaction (`tx`). Positions come from the one-row head table, whose
 * row lock is held until commit: positions are gap-free and in commit order, and once the lock is ours
 * every earlier append is visible, so the version check below cannot miss a concurrent writer. The
 * unique (stream_type, stream_id, version) constraint stays as the backstop.
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
  const [head] = await tx.execute(
    'update domain_event_head set position = position + ? returning position::text as position',
    [events.length],
  );
  const first = Number(head.position) - events.length + 1;
  const values: unknown[] = [];
  const tuples = events.map((e, i) => {
    values.push(first + i, opts.newId(), stream.type, stream.id, expectedVersion + i + 1, e.type, e.schemaVersion ?? 1, JSON.stringify(e.data), JSON.stringify(metadata), opts.occurredAt);
    return '(?::bigint, ?::uuid, ?, ?::uuid, ?::int, ?, ?::int, ?::jsonb, ?::jsonb, ?::timestamptz)';
  });
  const rows: EventRow[] = await tx.execute(
    `insert into domain_events (position, id, stream_type, stream_id, version, type, schema_version, data, metadata, occurred_at)
     select * from (values ${tuples.join(', ')}) v
     where (select coalesce(max(version), 0) from domain_events where stream_type = ? and stream_id = ?) = ?
     returning *`,
    [...values, stream.type, stream.id, expectedVersion],
  );
  if (rows.length === 0) {
    throw new VersionConflictError(stream.id, await streamHeadVersion(tx, stream), expectedVersion);
  }
  return rows.map(toStoredEvent);
}

export interface ReadStreamOptions {
  /** newest first when 'backward' */
  direction?: 'forward' | 'backward';
  /** forward: versions > after; backward: versions < before */
  after?: number;
  before?: number;
  limit?: number;
}

export async function readStream(em: EntityManager, stream: StreamRef, opts: ReadStreamOptions = {}): Promise<StoredEvent[]> {
  const backward = opts.direction === 'backward';
  const rows: EventRow[] = await em.execute(
    `select * from domain_events where stream_type = ? and stream_id = ?
       and version > ? and version < ?
     order by version ${backward ? 'desc' : 'asc'} limit ?`,
    [stream.type, stream.id, opts.after ?? 0, opts.before ?? 2_147_483_647, opts.limit ?? 1_000_000],
  );
  return rows.map(toStoredEvent);
}
