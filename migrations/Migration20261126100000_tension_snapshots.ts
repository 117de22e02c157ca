import { Migration } from '@mikro-orm/migrations';

/**
 * Snapshots of the past fold (issue 34): a tension as `foldPast` leaves it after `version` events, written by
 * as-of reads (tension-snapshots.ts) so that the next read of a long stream folds only the events after the
 * nearest snapshot. `fold` is the digest of the fold that made the row (tension.snapshot.ts): a new `evolve`
 * or upcaster reads none of the old rows. A cache, never a source: deleting every row loses nothing.
 */
export class Migration20261126100000_tension_snapshots extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table tension_snapshots (
        stream_id uuid not null,
        fold text not null,
        version int not null check (version > 0),
        past jsonb not null,
        occurred_at timestamptz not null,
        primary key (stream_id, fold, version)
      );
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table tension_snapshots;');
  }
}
