import { Migration } from '@mikro-orm/migrations';

/**
 * The per-database feed horizon, corrected (issue 30, SPEC §10).
 *
 * `market_feed_horizon()` (Migration20261125100000) widened each feed-lock holder's 32-bit `backend_xid`
 * to a full id as `x0 - ((x0 - xid) & 0xFFFFFFFF)`, where x0 is the next id as of the statement's snapshot.
 * That is exact for a holder whose id is below x0; but a writer that is given its id after the snapshot
 * and before `pg_locks` is read (every few hundred reads under load) has an id at or above x0, the
 * difference wraps to nearly 2^32, the result goes negative, and `::xid8` reads "-4294967291" as
 * 18446744069414584325: a horizon above every transaction, so a reader returned events of transactions
 * that committed after an in-flight one and moved its cursor past it. That is the 1–4 events a run the
 * feed bench lost on 2026-11-25.
 *
 * A holder whose id is not below x0 cannot hold the horizon below x0 anyway, so it is left out:
 * only ids at most 2^31 behind x0 count (a transaction in flight is always less than that behind the
 * next id). The arithmetic is a function of its own (`market_feed_horizon_of`), so its edges are tested
 * with the values where they break, not only with whatever ids a test database has reached.
 */
export class Migration20261125230000_feed_horizon_wrap extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function market_feed_horizon_of(x0 bigint, held bigint[]) returns xid8
      language sql immutable strict as $$
        select (x0 - coalesce(max(behind) filter (where behind < 2147483648), 0))::text::xid8
        from (select (x0 - h) & 4294967295 as behind from unnest(held) as h) b;
      $$;
    `);
    this.addSql(`
      create or replace function market_feed_horizon() returns xid8 language sql volatile as $$
        select pg_stat_clear_snapshot(); -- backend_xid as it is now, not as this transaction first read it
        with s as materialized (select pg_snapshot_xmax(pg_current_snapshot())::text::bigint as x0)
        select market_feed_horizon_of(s.x0, array(
          select a.backend_xid::text::bigint
          from pg_locks l join pg_stat_activity a on a.pid = l.pid
          where l.locktype = 'advisory' and l.classid = 7301020 and l.objid = 1 and l.objsubid = 2
            and l.database = (select oid from pg_database where datname = current_database())
            and a.backend_xid is not null
        )) from s;
      $$;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      create or replace function market_feed_horizon() returns xid8 language sql volatile as $$
        select pg_stat_clear_snapshot();
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
    this.addSql('drop function market_feed_horizon_of(bigint, bigint[])');
  }
}
