import { Migration } from '@mikro-orm/migrations';

/**
 * The feed filtered by stream (`streamId`) reads the stream's version key instead of an index of its own
 * (issue 37's rescore A/B). `domain_events_stream_feed_idx (stream_id, transaction_id, position)`
 * (Migration20261126010000) took each append at a random leaf, as the version key does: after a checkpoint,
 * each such leaf's first change logs the whole 8 kB page, and on the scale bench's rescores that index was
 * 37 % of an append's WAL (19,528 bytes an event with it, 12,207 without). Since Migration20261129200000 a
 * stream's versions are in feed order, so `(stream_type, stream_id, version)` serves the same pages: see
 * streamPageSql in server/persistence/event-store.ts.
 */
export class Migration20261129210000_stream_feed_by_version_key extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop index domain_events_stream_feed_idx');
  }

  override async down(): Promise<void> {
    this.addSql('create index domain_events_stream_feed_idx on domain_events (stream_id, transaction_id, position)');
  }
}
