// Snapshots of the past fold (issue 34): the nearest one at or below a version, and new ones written by the
// read that folded past them. Rows are keyed by the fold's digest, so only the fold that wrote a row reads it.
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PastTension } from '../domain/tension.past.js';
import { foldFingerprint, fromSnapshotJson, toSnapshotJson, type SnapshotJson } from '../domain/tension.snapshot.js';

/** The digest of today's fold (its revision, the event schema versions and what it makes of a probe stream). */
export const FOLD_DIGEST = createHash('sha256').update(foldFingerprint()).digest('hex').slice(0, 32);

export interface PastPoint {
  version: number;
  occurredAt: Date;
  past: PastTension;
}

/** The snapshot of the stream at the highest version ≤ `version` that today's fold wrote, if any. */
export async function nearestSnapshot(em: EntityManager, streamId: string, version: number, fold = FOLD_DIGEST): Promise<PastPoint | undefined> {
  const [row] = await em.execute<{ version: number; past: SnapshotJson; occurred_at: Date | string }[]>(
    `select version, past, occurred_at from tension_snapshots
     where stream_id = ? and fold = ? and version <= ? order by version desc limit 1`,
    [streamId, fold, version],
  );
  return row && { version: row.version, occurredAt: new Date(row.occurred_at), past: fromSnapshotJson(row.past) };
}

/**
 * Stores `points` (a read's fold passing versions that are multiples of the snapshot interval). Two readers
 * folding the same stream write the same rows: the second insert skips them. At most 500 rows a statement.
 */
export async function saveSnapshots(em: EntityManager, streamId: string, points: PastPoint[], fold = FOLD_DIGEST): Promise<void> {
  for (let i = 0; i < points.length; i += 500) {
    const chunk = points.slice(i, i + 500);
    const rows = chunk.map((p) => ({ version: p.version, past: toSnapshotJson(p.past), occurredAt: p.occurredAt.toISOString() }));
    await em.execute(
      `insert into tension_snapshots (stream_id, fold, version, past, occurred_at)
       select ?::uuid, ?, (r->>'version')::int, r->'past', (r->>'occurredAt')::timestamptz
       from jsonb_array_elements(?::jsonb) as r
       on conflict do nothing`,
      [streamId, fold, JSON.stringify(rows)],
    );
  }
}
