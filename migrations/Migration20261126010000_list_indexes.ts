import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes that keep every list's first and later pages cheap at a million tensions (issue 37).
 *
 * - Substring search (`q`, a case-insensitive `ILIKE '%…%'`) on tensions, users and actors: trigram GIN
 *   indexes (`pg_trgm`, a trusted contrib extension on PostgreSQL and bundled with PGlite), so a search
 *   reads the rows that contain the text's trigrams instead of walking a whole table. Patterns of one or two
 *   characters have no trigram; their plans walk the sort order's index and stop at the page's last match.
 *   `tension_text_matches` tells the planner what the predicate costs (below).
 * - Each tension sort as the keyset reads it, `(column, id)` in ONE direction: a btree read backwards serves
 *   the other direction, but `(score desc, id)` could not serve `score desc, id desc`, so every score group
 *   (a tenth of the table) was sorted. `name` had no index at all.
 * - `(state, …)` for the filter the admin app always sends, under the two sorts where walking the global
 *   order and skipping other states could read most of the table (the other sorts find a page of a state
 *   early, since no state is rarer than a few per cent of tensions in any order).
 * - An actor's and a lead's tensions (the foreign keys' indexes, which keep serving the foreign keys) in
 *   the order the admin app shows them, most recently updated first.
 * - The feed filtered by event type or by stream, in feed order, instead of walking the whole feed index.
 * - Users in their list order `(created_at, id)`, which had no index.
 *
 * Plain (not concurrent) builds, inside the migration's transaction: on a large existing table they hold
 * writes back for as long as the build takes (minutes at a million tensions); see docs/operations.md.
 */
export class Migration20261126010000_list_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create extension if not exists pg_trgm;

      drop index tensions_score_idx;
      drop index tensions_updated_idx;
      drop index tensions_created_idx;
      create index tensions_score_idx on tensions (score desc, id desc);
      create index tensions_updated_idx on tensions (updated_at desc, id desc);
      create index tensions_created_idx on tensions (created_at desc, id desc);
      create index tensions_name_idx on tensions (name, id);
      drop index tensions_actor_idx;
      drop index tensions_lead_idx;
      create index tensions_actor_idx on tensions (actor_id, updated_at desc, id desc);
      create index tensions_lead_idx on tensions (lead_user_id, updated_at desc, id desc);
      create index tensions_state_score_idx on tensions (state, score desc, id desc);
      create index tensions_state_name_idx on tensions (state, name, id);
      create index tensions_name_trgm_idx on tensions using gin (name gin_trgm_ops);
      create index tensions_current_context_trgm_idx on tensions using gin (current_context gin_trgm_ops);
      create index tensions_potential_future_trgm_idx on tensions using gin (potential_future gin_trgm_ops);

      create index domain_events_type_feed_idx on domain_events (type, transaction_id, position);
      create index domain_events_stream_feed_idx on domain_events (stream_id, transaction_id, position);

      create index users_created_idx on users (created_at, id);
      create index users_name_trgm_idx on users using gin (name gin_trgm_ops);
      create index users_email_trgm_idx on users using gin (email gin_trgm_ops);
      create index actors_name_trgm_idx on actors using gin (name gin_trgm_ops);
    `);
    // The tension search's predicate once more, priced as what it is. PostgreSQL prices every operator
    // alike, so to the planner an ILIKE over three texts of up to 10,000 characters looks as cheap as an
    // integer comparison, and below a few hundred thousand rows it scans the whole table (about 10 times
    // slower than the trigram indexes at 20,000 tensions). The list adds this call beside the indexable
    // ILIKEs: the same rows match, and every plan that evaluates the predicate row by row pays its price.
    this.addSql(`
      create function tension_text_matches(name text, current_context text, potential_future text, pattern text)
        returns boolean language plpgsql immutable parallel safe cost 1000 as $$
      begin
        return name ilike pattern or current_context ilike pattern or potential_future ilike pattern;
      end $$;
    `);
  }

  override async down(): Promise<void> {
    // The extension stays: other objects of the database may use it by now.
    this.addSql(`
      drop function tension_text_matches(text, text, text, text);
      drop index actors_name_trgm_idx;
      drop index users_email_trgm_idx;
      drop index users_name_trgm_idx;
      drop index users_created_idx;
      drop index domain_events_stream_feed_idx;
      drop index domain_events_type_feed_idx;
      drop index tensions_potential_future_trgm_idx;
      drop index tensions_current_context_trgm_idx;
      drop index tensions_name_trgm_idx;
      drop index tensions_state_name_idx;
      drop index tensions_state_score_idx;
      drop index tensions_name_idx;
      drop index tensions_lead_idx;
      drop index tensions_actor_idx;
      create index tensions_actor_idx on tensions (actor_id);
      create index tensions_lead_idx on tensions (lead_user_id);
      drop index tensions_created_idx;
      drop index tensions_updated_idx;
      drop index tensions_score_idx;
      create index tensions_score_idx on tensions (score desc, id);
      create index tensions_updated_idx on tensions (updated_at desc, id);
      create index tensions_created_idx on tensions (created_at desc, id);
    `);
  }
}
