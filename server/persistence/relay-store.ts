// The relays' rows (`feed_relays`): a checkpoint (the feed cursor of the last event the target
// acknowledged) and a lease (who publishes, until when). Every write is fenced by the lease, so a relay
// that lost it (paused, partitioned) can neither advance the checkpoint nor keep publishing for long.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FeedCursor } from './event-store.js';

/** Takes or renews the lease when free, expired, or already ours; answers the checkpoint when held. */
export async function acquireLease(em: EntityManager, name: string, holder: string, leaseMs: number): Promise<FeedCursor | null> {
  await em.execute(`insert into feed_relays (name) values (?) on conflict (name) do nothing`, [name]);
  const rows: { transaction_id: string; position: string }[] = await em.execute(
    `update feed_relays set holder = ?, lease_until = clock_timestamp() + (? * interval '1 millisecond'), updated_at = clock_timestamp()
     where name = ? and (holder = ? or holder is null or lease_until < clock_timestamp())
     returning transaction_id::text as transaction_id, position`,
    [holder, leaseMs, name, holder],
  );
  return rows.length ? { transactionId: rows[0].transaction_id, position: Number(rows[0].position) } : null;
}

/** Advances the checkpoint (and renews the lease) only while `holder` still holds it; false when it does not. */
export async function advanceCheckpoint(em: EntityManager, name: string, holder: string, leaseMs: number, to: FeedCursor, published: number): Promise<boolean> {
  const rows = await em.execute(
    `update feed_relays set transaction_id = ?::text::xid8, position = ?, published = published + ?,
            lease_until = clock_timestamp() + (? * interval '1 millisecond'), updated_at = clock_timestamp()
     where name = ? and holder = ? and lease_until > clock_timestamp()
     returning 1`,
    [to.transactionId, to.position, published, leaseMs, name, holder],
  );
  return rows.length === 1;
}

/** Lets the lease go at a clean stop, so a standby takes over at once. */
export async function releaseLease(em: EntityManager, name: string, holder: string): Promise<void> {
  await em.execute(`update feed_relays set holder = null, lease_until = null where name = ? and holder = ?`, [name, holder]);
}

/**
 * When the event `eventId` (the newest message the target holds) lies past `from`, the cursor at it and how
 * many events lie in between (it included); null when it is at or before `from`, or not an event of this
 * database. A relay whose acknowledgements were lost (the connection dropped after the target stored the
 * messages) resumes from there instead of publishing them again, which a duplicate window would absorb only
 * for as long as it lasts.
 */
export async function storedPastCheckpoint(em: EntityManager, eventId: string, from: FeedCursor): Promise<{ cursor: FeedCursor; count: number } | null> {
  const rows: { transaction_id: string; position: string; count: number }[] = await em.execute(
    `select s.transaction_id::text as transaction_id, s.position,
            (select count(*)::int from domain_events e
              where (e.transaction_id, e.position) > (?::text::xid8, ?::bigint)
                and (e.transaction_id, e.position) <= (s.transaction_id, s.position)) as count
     from domain_events s
     where s.id = ? and (s.transaction_id, s.position) > (?::text::xid8, ?::bigint)`,
    [from.transactionId, from.position, eventId, from.transactionId, from.position],
  );
  return rows.length ? { cursor: { transactionId: rows[0].transaction_id, position: Number(rows[0].position) }, count: rows[0].count } : null;
}
