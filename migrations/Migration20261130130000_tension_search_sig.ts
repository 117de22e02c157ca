import { Migration } from '@mikro-orm/migrations';

/**
 * `tensions.search_sig`: a 128-bit signature of the searchable texts' trigrams, carried in the indexes a
 * search walks, so that a walk reads the heap only for the rows whose signature may hold the text (issue
 * 37: a common word's search within 5 × a tension's read at a million tensions).
 *
 * A search walks the list's order and tested every row it read for the text (`strpos` on `search_text`):
 * one heap page a row, in the sort's order, so at random. A common word's page at a million tensions reads
 * about 17,000 rows and, unless the table sits in `shared_buffers`, 4,000–5,000 pages from the operating
 * system (43–64 ms for one statement, 10 ms warm; the bench's first requests 15–23 × a tension's read).
 *
 * The signature: each trigram of three ASCII letters or digits that `pg_trgm` finds in the lower-cased
 * texts (`show_trgm`: the runs of word characters, each three in a row) sets bit `hashtext(trigram) & 127`.
 * A text that holds the search (`strpos(search_text, lower(q)) > 0`) holds each such trigram of the search
 * too: three letters in a row of the search are three in a row of the text, inside one of its words. So
 * `search_sig & sig(q) = sig(q)` never drops a match; it passes a row without one at about the signature's
 * fill to the power of the search's trigrams (the bench's texts: 61 of 128 bits set, a six-letter word's four
 * trigrams pass 5 % of the rows that lack it). Trigrams with other letters are left out on both sides (which
 * of them `pg_trgm` keeps as text and which it hashes depends on their bytes), so a search with none, or of
 * one or two letters, passes every row to the `strpos` (tensionWalkSql then tests `search_text` directly).
 *
 * Kept by a trigger for every writer alike (commands, the rebuild, import, bulk SQL): on insert, and on an
 * update that changes a text (a rescore compares three texts and computes nothing: 25 µs a row to compute).
 * The walked indexes INCLUDE it, and the state and the score where their keys lack them (the list's filters
 * but a party's); a walk reads them alone (an index-only scan) where the visibility map
 * says a page holds only visible rows, which autovacuum keeps (docs/operations.md). Adding it rewrites
 * `tensions` and rebuilds the seven indexes under an exclusive lock (a million tensions: see
 * docs/operations.md).
 */
export class Migration20261130130000_tension_search_sig extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function tension_text_sig(t text) returns bit(128) language sql immutable strict parallel safe as $$
        select coalesce(bit_or(set_bit(repeat('0', 128)::bit(128), hashtext(g) & 127, 1)), repeat('0', 128)::bit(128))
        from unnest(show_trgm(t)) g
        where g ~ '^[a-z0-9]{3}$'
      $$;

      -- The walked indexes are built once, after the rewrite (it rebuilds every index the table has).
      drop index tensions_state_score_idx;
      drop index tensions_state_name_idx;
      drop index tensions_state_created_idx;
      drop index tensions_updated_idx;
      drop index tensions_actor_sort_idx;
      drop index tensions_lead_sort_idx;
      drop index tensions_no_lead_idx;
      -- One rewrite of the table (an UPDATE would re-insert every row into each index: minutes at a million).
      alter table tensions add column search_sig bit(128);
      alter table tensions alter column search_sig type bit(128) using tension_text_sig(search_text);
      alter table tensions alter column search_sig set not null;

      create function tension_search_sig() returns trigger language plpgsql as $$
      begin
        new.search_sig := tension_text_sig(lower(new.name) || E'\\x1f' || lower(coalesce(new.current_context, ''))
          || E'\\x1f' || lower(coalesce(new.potential_future, '')));
        return new;
      end $$;
      create trigger tension_search_sig_insert before insert on tensions
        for each row execute function tension_search_sig();
      create trigger tension_search_sig_update before update of name, current_context, potential_future on tensions
        for each row when (old.name is distinct from new.name or old.current_context is distinct from new.current_context
          or old.potential_future is distinct from new.potential_future)
        execute function tension_search_sig();

      -- (with the state and the score where the keys lack them: a state or minScore filter is tested there too)
      create index tensions_state_score_idx on tensions (state, score desc, id desc) include (search_sig);
      create index tensions_state_name_idx on tensions (state, name, id) include (search_sig, score);
      create index tensions_state_created_idx on tensions (state, created_at, id) include (search_sig, score);
      create index tensions_updated_idx on tensions (updated_at desc, id desc) include (search_sig, state, score);
      create index tensions_actor_sort_idx on tensions (actor_sort, actor_id, id) include (search_sig, state, score);
      create index tensions_lead_sort_idx on tensions (lead_sort, lead_user_id, id) include (search_sig, state, score)
        where lead_user_id is not null;
      -- (lead_user_id, always null here: the walk reads it from the index as the other branch does)
      create index tensions_no_lead_idx on tensions (id) include (search_sig, lead_user_id, state, score) where lead_user_id is null;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop index tensions_state_score_idx;
      drop index tensions_state_name_idx;
      drop index tensions_state_created_idx;
      drop index tensions_updated_idx;
      drop index tensions_actor_sort_idx;
      drop index tensions_lead_sort_idx;
      drop index tensions_no_lead_idx;
      drop trigger tension_search_sig_update on tensions;
      drop trigger tension_search_sig_insert on tensions;
      drop function tension_search_sig();
      alter table tensions drop column search_sig;
      drop function tension_text_sig(text);
      create index tensions_state_score_idx on tensions (state, score desc, id desc);
      create index tensions_state_name_idx on tensions (state, name, id);
      create index tensions_state_created_idx on tensions (state, created_at, id);
      create index tensions_updated_idx on tensions (updated_at desc, id desc);
      create index tensions_actor_sort_idx on tensions (actor_sort, actor_id, id);
      create index tensions_lead_sort_idx on tensions (lead_sort, lead_user_id, id) where lead_user_id is not null;
      create index tensions_no_lead_idx on tensions (id) where lead_user_id is null;
    `);
  }
}
