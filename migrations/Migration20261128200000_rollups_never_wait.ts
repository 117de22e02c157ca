import { Migration } from '@mikro-orm/migrations';

/**
 * The dashboard's rollups no longer make one writer wait for another's open transaction.
 *
 * A rollup row was one per key (`tension_load`: actor, state, score) or one of 16 per key chosen by the
 * stream id (`tension_flow_days`: day, type). A transaction that appended and then stayed open held its
 * rollup rows' locks to its end, and every other writer of the same key waited for it: 1 in 16 of the
 * day's writers of that event type, or every writer of that actor, state and score. A COMMIT held up by a
 * slow client, a connection cut before COMMIT (held until the server notices, minutes), or a long import
 * stalled unrelated commands for as long (found by the feed test whose held transaction deadlocked with
 * the writes it waited for, about one CI run in six).
 *
 * Now each key has as many rows (`shard`) as writers have needed at once, and readers sum them (they
 * already did). A writer adds its count to a row of its key that nobody holds (`for update skip locked`);
 * when every row of the key is held, or none exists yet, it inserts a row of its own under a random shard.
 * So a writer waits only on a random 31-bit shard already taken by a transaction still in flight (a
 * unique-index check), and a key has about as many rows as writers ever held it at once (writers one at a
 * time reuse one). Existing rows keep their counts; `tension_load` rows become shard 0.
 *
 * Cost (pgbench, a rescore's projection update and append, 6-8 s runs, 2026-11-28): 1 client 584-588
 * transactions a second before, 570-622 after; 2 clients 1,295-1,599 before, 1,444-1,722 after; 8 clients
 * 1,270-1,320 before, 1,547-1,823 after (the 16 shards had made writers queue). After the 8-client runs a
 * key had at most 8 rows (flow: 8 for the day, load: 56 for 10 keys). A statement that
 * inserts or deletes many keys at once pays a loop per key: 100,000 tensions of 100,000 keys, 8.7 s → 10.9 s.
 */
export class Migration20261128200000_rollups_never_wait extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table tension_load add column shard int not null default 0;
      alter table tension_load drop constraint tension_load_pkey, add primary key (actor_id, state, score, shard);
      alter table tension_flow_days alter column shard type int;

      -- Adds d to (actor, state, score): to a row of the key that nobody holds (locking only that one), else to a
      -- new row. (Matched by key, not ctid: a row updated since this statement's snapshot is locked at its latest
      -- version, which a ctid from the snapshot misses.)
      create function tension_load_put(a uuid, st text, sc smallint, d bigint) returns void language plpgsql as $f$
      declare k int;
      begin
        select shard into k from tension_load where actor_id = a and state = st and score = sc limit 1 for update skip locked;
        if found then
          update tension_load set n = n + d where actor_id = a and state = st and score = sc and shard = k;
        else
          insert into tension_load (actor_id, state, score, shard, n) values (a, st, sc, 1 + floor(random() * 2147483646)::int, d)
            on conflict (actor_id, state, score, shard) do update set n = tension_load.n + excluded.n;
        end if;
      end $f$;
      -- An update that moves a tension (its trigger skips updates that move nothing): one less under its old key,
      -- one more under its new one. (Inserts and deletes have their own triggers, per statement.)
      create or replace function tension_load_track() returns trigger language plpgsql as $$
      begin
        perform tension_load_put(old.actor_id, old.state, old.score, -1);
        perform tension_load_put(new.actor_id, new.state, new.score, 1);
        return null;
      end $$;
      drop function tension_load_add(uuid, text, smallint, int);
      create or replace function tension_load_added() returns trigger language plpgsql as $$
      declare g record;
      begin
        for g in select actor_id, state, score, count(*) as n from new_rows group by 1, 2, 3 loop
          perform tension_load_put(g.actor_id, g.state, g.score, g.n);
        end loop;
        return null;
      end $$;
      create or replace function tension_load_removed() returns trigger language plpgsql as $$
      declare g record;
      begin
        for g in select actor_id, state, score, count(*) as n from old_rows group by 1, 2, 3 loop
          perform tension_load_put(g.actor_id, g.state, g.score, -g.n);
        end loop;
        return null;
      end $$;

      -- The same for a day's events of one type (shards 0-15 are the ones the stream id chose before).
      create function tension_flow_put(dy date, ty text, d bigint, s bigint) returns void language plpgsql as $f$
      declare k int;
      begin
        select shard into k from tension_flow_days where day = dy and type = ty limit 1 for update skip locked;
        if found then
          update tension_flow_days set n = n + d, score_sum = score_sum + s where day = dy and type = ty and shard = k;
        else
          insert into tension_flow_days (day, type, shard, n, score_sum) values (dy, ty, 16 + floor(random() * 2147483631)::int, d, s)
            on conflict (day, type, shard) do update
              set n = tension_flow_days.n + excluded.n, score_sum = tension_flow_days.score_sum + excluded.score_sum;
        end if;
      end $f$;
      create or replace function tension_flow_added() returns trigger language plpgsql as $$
      declare g record;
      begin
        for g in select (occurred_at at time zone 'UTC')::date as day, type, count(*) as n,
                        sum(case when type = 'TensionSensed' then coalesce((data ->> 'score')::int, 0) else 0 end) as score_sum
                 from new_rows where stream_type = 'tension' group by 1, 2 loop
          perform tension_flow_put(g.day, g.type, g.n, g.score_sum);
        end loop;
        return null;
      end $$;
    `);
  }

  override async down(): Promise<void> {
    // Back to one row per (actor, state, score) and up to 16 per (day, type), chosen by the stream id again: each
    // key's shards are summed into one row first (shard 0), so the counts are kept.
    this.addSql(`
      create or replace function tension_flow_added() returns trigger language plpgsql as $$
      begin
        insert into tension_flow_days (day, type, shard, n, score_sum)
          select (occurred_at at time zone 'UTC')::date, type, abs(hashtext(stream_id::text)) % 16, count(*),
                 sum(case when type = 'TensionSensed' then coalesce((data ->> 'score')::int, 0) else 0 end)
          from new_rows where stream_type = 'tension' group by 1, 2, 3 order by 1, 2, 3
          on conflict (day, type, shard) do update
            set n = tension_flow_days.n + excluded.n, score_sum = tension_flow_days.score_sum + excluded.score_sum;
        return null;
      end $$;
      drop function tension_flow_put(date, text, bigint, bigint);
      create temporary table flow_sums on commit drop as
        select day, type, sum(n) as n, sum(score_sum) as score_sum from tension_flow_days group by 1, 2;
      delete from tension_flow_days;
      alter table tension_flow_days alter column shard type smallint;
      insert into tension_flow_days (day, type, shard, n, score_sum) select day, type, 0, n, score_sum from flow_sums;

      create or replace function tension_load_added() returns trigger language plpgsql as $$
      begin
        insert into tension_load (actor_id, state, score, n)
          select actor_id, state, score, count(*) from new_rows group by 1, 2, 3 order by 1, 2, 3
          on conflict (actor_id, state, score) do update set n = tension_load.n + excluded.n;
        return null;
      end $$;
      create or replace function tension_load_removed() returns trigger language plpgsql as $$
      begin
        insert into tension_load (actor_id, state, score, n)
          select actor_id, state, score, -count(*) from old_rows group by 1, 2, 3 order by 1, 2, 3
          on conflict (actor_id, state, score) do update set n = tension_load.n + excluded.n;
        return null;
      end $$;
      create temporary table load_sums on commit drop as
        select actor_id, state, score, sum(n) as n from tension_load group by 1, 2, 3;
      delete from tension_load;
      alter table tension_load drop constraint tension_load_pkey, drop column shard, add primary key (actor_id, state, score);
      insert into tension_load (actor_id, state, score, n) select actor_id, state, score, n from load_sums;
      create function tension_load_add(a uuid, st text, sc smallint, d int) returns void language sql as $f$
        insert into tension_load (actor_id, state, score, n) values (a, st, sc, d)
          on conflict (actor_id, state, score) do update set n = tension_load.n + excluded.n
      $f$;
      create or replace function tension_load_track() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          perform tension_load_add(new.actor_id, new.state, new.score, 1);
        elsif tg_op = 'DELETE' then
          perform tension_load_add(old.actor_id, old.state, old.score, -1);
        elsif (old.actor_id, old.state, old.score) < (new.actor_id, new.state, new.score) then
          perform tension_load_add(old.actor_id, old.state, old.score, -1);
          perform tension_load_add(new.actor_id, new.state, new.score, 1);
        else
          perform tension_load_add(new.actor_id, new.state, new.score, 1);
          perform tension_load_add(old.actor_id, old.state, old.score, -1);
        end if;
        return null;
      end $$;
      drop function tension_load_put(uuid, text, smallint, bigint);
    `);
  }
}
