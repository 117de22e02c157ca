import { Migration } from '@mikro-orm/migrations';

/**
 * The feed's horizon becomes this database's own (issue 30, SPEC §10).
 *
 * The feed shows only events whose transaction id is below every transaction that may still append one.
 * Until now that was `pg_snapshot_xmin`: the oldest transaction in flight anywhere on the server, so a
 * transaction held open in another database, or one here that never appends, froze every follower.
 *
 * Now a transaction that appends takes a shared advisory lock, the feed lock, BEFORE it is given a
 * transaction id, and a reader's horizon is the lowest transaction id among this database's holders of
 * that lock (or the next id to be assigned when there are none): `market_feed_horizon()`. A transaction
 * that takes the lock later than its id could be passed by a reader before it appends, so the rule is
 * enforced here, not left to every caller: a statement-level trigger on `domain_events` takes the lock
 * itself when the transaction has no id yet (a plain autocommitted insert), accepts a transaction that
 * took it first (`market_feed_lock()`, which the service calls at the start of a transaction that appends
 * after other writes), and refuses any other append (55000): an append that could be skipped by the feed
 * fails loudly instead of being lost silently.
 *
 * Shared advisory locks never conflict with each other: writers do not wait on one another for it.
 */
export class Migration20261125100000_feed_horizon_per_database extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function market_feed_lock() returns text language sql volatile as $$
        select pg_advisory_xact_lock_shared(7301020, 1);
        select set_config('market.feed_lock',
          case when current_setting('market.feed_lock', true) = 'before-id' or pg_current_xact_id_if_assigned() is null
               then 'before-id' else 'after-id' end, true);
      $$;
    `);
    this.addSql(`
      create function domain_events_feed_lock() returns trigger language plpgsql as $$
      begin
        if market_feed_lock() <> 'before-id' then
          raise exception 'domain_events: this transaction took its id before the feed lock; call market_feed_lock() first'
            using errcode = '55000';
        end if;
        return null;
      end $$;
    `);
    this.addSql(`
      create trigger domain_events_feed_lock before insert on domain_events
        for each statement execute function domain_events_feed_lock();
    `);
    // The horizon, read by one statement BEFORE the statement that reads the feed (whose snapshot must be
    // taken after it): every transaction below it that may append has ended. backend_xid is 32 bits; the
    // holders are in flight, so each is less than 2^31 behind the next id and widens to xid8 exactly.
    this.addSql(`
      create function market_feed_horizon() returns xid8 language sql volatile as $$
        select pg_stat_clear_snapshot(); -- backend_xid as it is now, not as this transaction first read it
        with s as materialized (select pg_snapshot_xmax(pg_current_snapshot())::text::bigint as x0)
        select least(s.x0, (
          select min(s.x0 - ((s.x0 - a.backend_xid::text::bigint) & 4294967295))
          from pg_locks l join pg_stat_activity a on a.pid = l.pid
          where l.locktype = 'advisory' and l.classid = 7301020 and l.objid = 1 and l.objsubid = 2
            and l.database = (select oid from pg_database where datname = current_database())
            and a.backend_xid is not null
        ))::text::xid8 from s;
      $$;
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop function market_feed_horizon()');
    this.addSql('drop trigger domain_events_feed_lock on domain_events');
    this.addSql('drop function domain_events_feed_lock()');
    this.addSql('drop function market_feed_lock()');
  }
}
