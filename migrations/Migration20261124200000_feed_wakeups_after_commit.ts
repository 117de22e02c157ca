import { Migration } from '@mikro-orm/migrations';

/**
 * Feed wake-ups leave the write path (issue 18).
 *
 * The append trigger called `pg_notify` in every appending transaction. PostgreSQL serialises the
 * commits of notifying transactions with one lock for the whole cluster, held through the commit's WAL
 * flush (async.c, PreCommit_Notify), which is the database-wide lock issue 18 removed, back by another
 * door: pgbench of a bare insert with and without the trigger, same run, measured 225-240 against
 * 1,970-2,690 tx/s at 32 clients. The service now announces commits itself, after they commit and
 * coalesced (at most one notification per instance every few milliseconds, in a transaction of its
 * own), and feed readers also poll slowly as a fallback for writers that announce nothing.
 */
export class Migration20261124200000_feed_wakeups_after_commit extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      drop trigger domain_events_notify on domain_events;
      drop function domain_events_notify();
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      create function domain_events_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('market_events', '');
        return null;
      end $$;
      create trigger domain_events_notify after insert on domain_events
        for each statement execute function domain_events_notify();
    `);
  }
}
