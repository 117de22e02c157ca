import { Migration } from '@mikro-orm/migrations';

/**
 * Appends without a database-wide lock (issue 18): positions from a sequence, and each event stamped
 * with its transaction's id, which readers of the global order compare with the oldest transaction
 * still in flight (see `readAll` in server/persistence/event-store.ts). Replaces `domain_event_head`.
 *
 * Existing events keep their positions and get transaction id 0, so they stay in their order and ahead
 * of everything appended later. The column is added with a constant default, which PostgreSQL records
 * in the catalogue without rewriting or updating a row: the append-only trigger is never asked to let
 * an UPDATE through. Only then does the default become the writing transaction's id.
 */
export class Migration20261123200000_concurrent_appends extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      lock table domain_events, domain_event_head in exclusive mode;

      alter table domain_events add column transaction_id xid8 not null default '0'::xid8;
      alter table domain_events alter column transaction_id set default pg_current_xact_id();

      create sequence domain_events_position_seq as bigint owned by domain_events.position;
      select setval('domain_events_position_seq',
        greatest((select max(position) from domain_events), (select max(position) from domain_event_head), 0) + 1, false);
      alter table domain_events alter column position set default nextval('domain_events_position_seq');

      create index domain_events_feed_idx on domain_events (transaction_id, position);

      drop table domain_event_head;
    `);
  }

  override async down(): Promise<void> {
    // Back to the head row; positions stay as they are (gaps included), the head continues after them.
    this.addSql(`
      create table domain_event_head (
        id boolean primary key default true check (id),
        position bigint not null
      );
      insert into domain_event_head (id, position) select true, coalesce(max(position), 0) from domain_events;
      drop index domain_events_feed_idx;
      alter table domain_events alter column position drop default;
      drop sequence domain_events_position_seq;
      alter table domain_events drop column transaction_id;
    `);
  }
}
