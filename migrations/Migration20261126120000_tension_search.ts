import { Migration } from '@mikro-orm/migrations';

/**
 * The tensions' searchable texts in a table of their own, `tension_search`, with the trigram indexes
 * (issue 37: writes keep their speed with the list indexes).
 *
 * A rescore changes `score` and `updated_at`, both indexed, so its update of `tensions` is never HOT and
 * re-inserts the row into every index of the table: with the trigram indexes on `tensions`, every trigram
 * of the name and both texts on every rescore (REST rescore fell to 0.31 of its rate without them). The
 * texts change only when a tension is created or edited, so their copy here, kept by triggers on
 * `tensions`, is written only then, by every writer alike (commands, the rebuild, import, bulk SQL). The
 * update trigger's condition compares the three texts, so a rescore costs one comparison, not a write.
 * The list's `q` reads this table's trigram indexes and joins the page's tensions by id
 * (tensionListSql). Deleting a tension deletes its copy (the foreign key's cascade).
 */
export class Migration20261126120000_tension_search extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table tension_search (
        id uuid primary key references tensions (id) on delete cascade,
        name text not null,
        current_context text,
        potential_future text
      );
      insert into tension_search (id, name, current_context, potential_future)
        select id, name, current_context, potential_future from tensions;

      create function tension_search_write() returns trigger language plpgsql as $$
      begin
        insert into tension_search (id, name, current_context, potential_future)
          values (new.id, new.name, new.current_context, new.potential_future)
          on conflict (id) do update set name = excluded.name, current_context = excluded.current_context,
            potential_future = excluded.potential_future;
        return null;
      end $$;
      create trigger tension_search_insert after insert on tensions
        for each row execute function tension_search_write();
      create trigger tension_search_update after update of name, current_context, potential_future on tensions
        for each row when (old.name is distinct from new.name or old.current_context is distinct from new.current_context
          or old.potential_future is distinct from new.potential_future)
        execute function tension_search_write();

      drop index tensions_name_trgm_idx;
      drop index tensions_current_context_trgm_idx;
      drop index tensions_potential_future_trgm_idx;
      create index tension_search_name_trgm_idx on tension_search using gin (name gin_trgm_ops);
      create index tension_search_current_context_trgm_idx on tension_search using gin (current_context gin_trgm_ops);
      create index tension_search_potential_future_trgm_idx on tension_search using gin (potential_future gin_trgm_ops);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger tension_search_update on tensions;
      drop trigger tension_search_insert on tensions;
      drop table tension_search;
      drop function tension_search_write();
      create index tensions_name_trgm_idx on tensions using gin (name gin_trgm_ops);
      create index tensions_current_context_trgm_idx on tensions using gin (current_context gin_trgm_ops);
      create index tensions_potential_future_trgm_idx on tensions using gin (potential_future gin_trgm_ops);
    `);
  }
}
