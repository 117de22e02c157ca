import { Migration } from '@mikro-orm/migrations';

/**
 * The dashboard's rollups (Migration20261126130000) kept per statement, not per row, where rows come in bulk.
 *
 * Their row triggers upserted the same few rollup rows once per inserted row: a statement inserting 100,000
 * events (an import, a test's bulk, the scale bench's load) updated one `tension_flow_days` row up to 100,000
 * times in one transaction, each update a new version of it that the next upsert's index lookup walks past,
 * so the cost grew with the square of the rows (a 100,000-stream bulk insert: 104 s; `rebuild-live`'s set-up).
 * Inserts and deletes of `tensions` and inserts of `domain_events` now add their counts once per statement from
 * the statement's transition table, grouped, in key order (so two writers take the rollup rows' locks in the
 * same order). Updates keep their row trigger: the command path updates one row a statement, and its `when`
 * skips every update that moves nothing (a rename).
 */
export class Migration20261128130000_rollups_per_statement extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function tension_load_added() returns trigger language plpgsql as $$
      begin
        insert into tension_load (actor_id, state, score, n)
          select actor_id, state, score, count(*) from new_rows group by 1, 2, 3 order by 1, 2, 3
          on conflict (actor_id, state, score) do update set n = tension_load.n + excluded.n;
        return null;
      end $$;
      create function tension_load_removed() returns trigger language plpgsql as $$
      begin
        insert into tension_load (actor_id, state, score, n)
          select actor_id, state, score, -count(*) from old_rows group by 1, 2, 3 order by 1, 2, 3
          on conflict (actor_id, state, score) do update set n = tension_load.n + excluded.n;
        return null;
      end $$;
      drop trigger tensions_load_insert_delete on tensions;
      create trigger tensions_load_insert after insert on tensions
        referencing new table as new_rows for each statement execute function tension_load_added();
      create trigger tensions_load_delete after delete on tensions
        referencing old table as old_rows for each statement execute function tension_load_removed();

      create function tension_flow_added() returns trigger language plpgsql as $$
      begin
        insert into tension_flow_days (day, type, shard, n, score_sum)
          select (occurred_at at time zone 'UTC')::date, type, abs(hashtext(stream_id::text)) % 16, count(*),
                 sum(case when type = 'TensionSensed' then coalesce((data ->> 'score')::int, 0) else 0 end)
          from new_rows where stream_type = 'tension' group by 1, 2, 3 order by 1, 2, 3
          on conflict (day, type, shard) do update
            set n = tension_flow_days.n + excluded.n, score_sum = tension_flow_days.score_sum + excluded.score_sum;
        return null;
      end $$;
      drop trigger domain_events_tension_flow on domain_events;
      drop function tension_flow_track();
      create trigger domain_events_tension_flow after insert on domain_events
        referencing new table as new_rows for each statement execute function tension_flow_added();
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger domain_events_tension_flow on domain_events;
      drop function tension_flow_added();
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
      drop trigger tensions_load_delete on tensions;
      drop trigger tensions_load_insert on tensions;
      drop function tension_load_removed();
      drop function tension_load_added();
      create trigger tensions_load_insert_delete after insert or delete on tensions
        for each row execute function tension_load_track();
    `);
  }
}
