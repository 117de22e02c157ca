import { Migration } from '@mikro-orm/migrations';

/**
 * The event feed (SPEC §10, issue 12).
 *
 * - Every statement that appends events notifies channel `market_events` (delivered when its transaction
 *   commits, one notification per transaction), so feed readers wake without polling the table.
 * - `feed_relays`: one row per relay (e.g. `nats:MARKET_EVENTS`): its checkpoint (the feed cursor of the
 *   last event the target acknowledged) and its lease (who publishes, until when). A lease row rather
 *   than a session advisory lock, which PgBouncer's transaction pooling would break.
 */
export class Migration20261124010000_event_feed extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function domain_events_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('market_events', '');
        return null;
      end $$;
      create trigger domain_events_notify after insert on domain_events
        for each statement execute function domain_events_notify();

      create table feed_relays (
        name text primary key,
        transaction_id xid8 not null default '0'::xid8,
        position bigint not null default 0,
        holder text,
        lease_until timestamptz,
        published bigint not null default 0,
        updated_at timestamptz not null default now()
      );
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop table feed_relays;
      drop trigger domain_events_notify on domain_events;
      drop function domain_events_notify();
    `);
  }
}
