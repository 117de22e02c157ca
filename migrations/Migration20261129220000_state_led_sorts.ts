import { Migration } from '@mikro-orm/migrations';

/**
 * Two indexes fewer for every rescore to write (issue 37's rescore A/B). A rescore changes `score` and
 * `updated_at`, so its update is never HOT and adds an entry to every index of `tensions`, each at a random
 * leaf whose first change after a checkpoint logs the whole page. `(score desc, id desc)` and `(name, id)`
 * repeated `(state, score desc, id desc)` and `(state, name, id)` but for the state: the lists without a
 * state filter under `sort=score` and `sort=name` now merge the three states' branches of the state-led index,
 * each read from the cursor (STATE_LED in server/persistence/tension-projection.ts), as `sort=state` does.
 */
export class Migration20261129220000_state_led_sorts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      drop index tensions_score_idx;
      drop index tensions_name_idx;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      create index tensions_score_idx on tensions (score desc, id desc);
      create index tensions_name_idx on tensions (name, id);
    `);
  }
}
