import { Migration } from '@mikro-orm/migrations';

/**
 * One index fewer for every rescore to write (issue 37's rescore A/B, measured on twin databases: the layout
 * with `tensions_created_idx` had one `tensions` index more than the layout before issue 37). A rescore's
 * update is never HOT, so it adds an entry to every index of `tensions`. `(created_at desc, id desc)`
 * repeated `(state, created_at, id)` (the dashboard's, Migration20261126130000) but for the state: the lists
 * without a state filter under `sort=createdAt` now merge the three states' branches of the state-led index,
 * each read from the cursor in either direction (STATE_LED in server/persistence/tension-projection.ts), as
 * `sort=score` and `sort=name` have since Migration20261129220000.
 */
export class Migration20261130010000_state_led_created extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index tensions_created_idx;`);
  }

  override async down(): Promise<void> {
    this.addSql(`create index tensions_created_idx on tensions (created_at desc, id desc);`);
  }
}
