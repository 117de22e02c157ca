import { Migration } from '@mikro-orm/migrations';

/**
 * The operator dashboard's figures (issue 36), read from small rollups instead of a scan per view.
 *
 * - `tension_load`: how many tension rows there are per (actor, state, score), kept by a trigger on the
 *   `tensions` projection in the writing transaction. A command's insert/update/delete, a discard (delete), a
 *   revive (insert) and a rebuild (delete + insert) all pass through it, so it always equals
 *   `select actor_id, state, score, count(*) from tensions group by 1, 2, 3`. Counts by state, by score and per
 *   actor are sums over at most actors × 30 rows. Concurrent writers only meet on one (actor, state, score).
 * - `tension_flow_days`: tension events per UTC day and type (sensed, resolved, dropped, …) with the sum of
 *   the scores sensed that day, kept by a trigger on `domain_events` (append-only, never rebuilt: an import
 *   inserts the events, so it fills this too). `shard` (from the stream id) spreads a busy day's writers over
 *   16 rows; readers sum them.
 * - `api_key_use_days`: requests per key per UTC day, added where `last_used_at` is written (at most once a
 *   minute per key and instance, with the requests counted in memory since), so a request writes nothing more.
 * - `tensions_state_created_idx`: the oldest alive tensions, read from the front of an index.
 *
 * Sign-in failures are counted from the audit trail's `(action, at)` index; feed, relay and webhook health read
 * their own tables' few rows.
 */
export class Migration20261126130000_dashboard_rollups extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table tension_load (
        actor_id uuid not null,
        state text not null,
        score smallint not null,
        n bigint not null default 0,
        primary key (actor_id, state, score)
      );

      create function tension_load_add(a uuid, st text, sc smallint, d int) returns void language sql as $f$
        insert into tension_load (actor_id, state, score, n) values (a, st, sc, d)
          on conflict (actor_id, state, score) do update set n = tension_load.n + excluded.n
      $f$;
      -- An update touches two rows: in key order, so two writers moving tensions both ways cannot deadlock.
      create function tension_load_track() returns trigger language plpgsql as $$
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
      create trigger tensions_load_insert_delete after insert or delete on tensions
        for each row execute function tension_load_track();
      create trigger tensions_load_update after update of actor_id, state, score on tensions
        for each row when (old.actor_id is distinct from new.actor_id or old.state is distinct from new.state or old.score is distinct from new.score)
        execute function tension_load_track();
      create function tension_load_truncated() returns trigger language plpgsql as $$
      begin
        delete from tension_load;
        return null;
      end $$;
      create trigger tensions_load_truncate after truncate on tensions
        for each statement execute function tension_load_truncated();

      insert into tension_load (actor_id, state, score, n)
        select actor_id, state, score, count(*) from tensions group by actor_id, state, score;

      create table tension_flow_days (
        day date not null,
        type text not null,
        shard smallint not null,
        n bigint not null default 0,
        score_sum bigint not null default 0,
        primary key (day, type, shard)
      );

      create function tension_flow_track() returns trigger language plpgsql as $$
      begin
        if new.stream_type = 'tension' then
          insert into tension_flow_days (day, type, shard, n, score_sum)
            values ((new.occurred_at at time zone 'UTC')::date, new.type, abs(hashtext(new.stream_id::text)) % 16, 1,
                    case when new.type = 'TensionSensed' then coalesce((new.data ->> 'score')::int, 0) else 0 end)
            on conflict (day, type, shard) do update
              set n = tension_flow_days.n + 1, score_sum = tension_flow_days.score_sum + excluded.score_sum;
        end if;
        return null;
      end $$;
      create trigger domain_events_tension_flow after insert on domain_events
        for each row execute function tension_flow_track();

      insert into tension_flow_days (day, type, shard, n, score_sum)
        select (occurred_at at time zone 'UTC')::date, type, abs(hashtext(stream_id::text)) % 16, count(*),
               sum(case when type = 'TensionSensed' then coalesce((data ->> 'score')::int, 0) else 0 end)
        from domain_events where stream_type = 'tension' group by 1, 2, 3;

      create table api_key_use_days (
        key_id uuid not null references api_keys (id) on delete cascade,
        day date not null,
        requests bigint not null default 0,
        primary key (key_id, day)
      );
      create index api_key_use_days_day_idx on api_key_use_days (day, key_id);

      create index tensions_state_created_idx on tensions (state, created_at, id);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop index tensions_state_created_idx;
      drop table api_key_use_days;
      drop trigger domain_events_tension_flow on domain_events;
      drop function tension_flow_track();
      drop table tension_flow_days;
      drop trigger tensions_load_truncate on tensions;
      drop trigger tensions_load_update on tensions;
      drop trigger tensions_load_insert_delete on tensions;
      drop function tension_load_truncated();
      drop function tension_load_track();
      drop function tension_load_add(uuid, text, smallint, int);
      drop table tension_load;
    `);
  }
}
