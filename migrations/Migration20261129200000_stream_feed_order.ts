import { Migration } from '@mikro-orm/migrations';

/**
 * Each stream's events in feed order = version order, made a rule of the store (docs/events.md, "The guarantee").
 *
 * The feed orders events by (transaction id, position). A transaction is given its id at its first write or
 * row lock, not when it starts, so one that took its id and only then read a stream's head could append
 * version n+1 under a smaller id than the transaction that committed version n meanwhile, and every face of
 * the feed served n+1 before n. An actor deletion did exactly that: it locks the actor (its id), then waits on
 * its tensions' rows while a command on one of them commits (test/int/events/stream-order.int.test.ts).
 * The command path could not: it reads the row before anything gives it an id, and its write is conditional
 * on the version it read.
 *
 * Now the store refuses an append whose previous version carries a larger transaction id, with
 * serialization_failure (40001): the transaction is the one that must run again, under a new id (the
 * outermost `transact` and `withinTransaction` do, server/persistence/transaction.ts). Per statement, from
 * the transition table the rollups' trigger already keeps: one probe of the version key per event appended.
 * Events of one transaction share its id and take positions in version order (a sequence, in insertion
 * order), so within a stream (transaction id, position) then follows the versions exactly, which is what
 * lets a stream's page of the feed be read along its version key (Migration20261129210000).
 */
export class Migration20261129200000_stream_feed_order extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function domain_events_stream_order() returns trigger language plpgsql as $$
      declare
        late record;
      begin
        select n.stream_type, n.stream_id, n.version, p.transaction_id as previous, n.transaction_id as own into late
          from new_rows n
          join domain_events p on p.stream_type = n.stream_type and p.stream_id = n.stream_id and p.version = n.version - 1
          where p.transaction_id > n.transaction_id
          limit 1;
        if found then
          raise exception 'domain_events: % % version % would precede version % in the feed (transaction % below %); run the transaction again',
            late.stream_type, late.stream_id, late.version, late.version - 1, late.own, late.previous
            using errcode = '40001';
        end if;
        return null;
      end $$;
      create trigger domain_events_stream_order after insert on domain_events
        referencing new table as new_rows for each statement execute function domain_events_stream_order();
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger domain_events_stream_order on domain_events;
      drop function domain_events_stream_order();
    `);
  }
}
