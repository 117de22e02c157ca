import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes for the tension list's sorts by actor and by lead (issue 36). Those lists walk the actors (the users)
 * in name order and read each one's tensions in id order, at most a page each, so a page never joins and
 * sorts every tension (see `partyListSql` in server/persistence/tension-projection.ts):
 *
 * - `tensions (actor_id, id)` and `tensions (lead_user_id, id)`: one party's tensions in the keyset's order
 *   (the existing `(actor_id, updated_at desc, id desc)` orders them by time); the second also serves the
 *   tensions without a lead (`lead_user_id is null`, by id), which `sort=lead` lists last.
 * - `users (lower(name), id)`: users in name order, as `actors_name_idx` already has the actors.
 *
 * `sort=state` needs none: it reads `tensions_state_score_idx` (state, score desc, id desc).
 * Plain (not concurrent) builds, as Migration20261126010000's: see docs/operations.md.
 */
export class Migration20261128150000_party_sort_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index tensions_actor_id_idx on tensions (actor_id, id);
      create index tensions_lead_id_idx on tensions (lead_user_id, id);
      create index users_lower_name_idx on users (lower(name), id);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop index users_lower_name_idx;
      drop index tensions_lead_id_idx;
      drop index tensions_actor_id_idx;
    `);
  }
}
