import { Migration } from '@mikro-orm/migrations';

/**
 * The tension list under `sort=actor` and `sort=lead` walks the parties (actors, users) in name order by
 * their index and reads each one's tensions (Migration20261128150000; `partyListSql`). For a walk past a few
 * thousand tensions, PostgreSQL priced a parallel sequential scan of the whole party table and its sort
 * (spilled to disk) below that index's first rows, and took it: at a million tensions and 100,000 users, a
 * common word's walk of 4,000 tensions took 64–101 ms that way against 11–17 ms by the index, so walks were
 * cut at 2,000 tensions a statement (WALK.groupStep) and a page took four statements or more. No query of
 * the service's is helped by a parallel scan of these tables (their lists and searches read indexes), so
 * they are read by one process, and a walk takes 4,000 tensions a statement (WALK.groupStep).
 * The embedded database runs no parallel workers; the setting is kept there too, and does nothing.
 */
export class Migration20261129140000_party_lists_serial extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table users set (parallel_workers = 0);
      alter table actors set (parallel_workers = 0);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table actors reset (parallel_workers);
      alter table users reset (parallel_workers);
    `);
  }
}
