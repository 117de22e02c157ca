import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook deliveries cost less per event (issue 33's throughput row): an event's delivery no longer copies
 * the event into `payload` (the body is built at each attempt from the feed's event row, `event_id`);
 * `payload` stays for the messages that are no feed event (test messages) and for the rows written before.
 * `stream` is the event's stream (what orders first attempts), so a claim reads no JSON.
 *
 * A first attempt is claimed by `claimed_until` (the end of its run window) alone, with `last_attempt_at`:
 * neither is indexed, and the table leaves room on each page (`fillfactor`), so the claim is a HOT update
 * (no index entry). The attempt is counted when its outcome is written; a claim whose window has passed
 * without an outcome (a crash) can be claimed again, in feed order.
 *
 * The delivery log's index follows its order `(created_at desc, seq desc)`, and also serves the retention
 * of succeeded deliveries (deleted in batches, per endpoint).
 */
export class Migration20261128170000_webhook_deliveries_lighter extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table webhook_deliveries alter column payload drop not null;
      alter table webhook_deliveries add column stream text null, add column claimed_until timestamptz null;
      update webhook_deliveries set stream = payload #>> '{data,streamId}' where status in ('pending', 'retrying');
      alter table webhook_deliveries set (fillfactor = 70);
      drop index webhook_deliveries_list_idx;
      create index webhook_deliveries_log_idx on webhook_deliveries (endpoint_id, created_at desc, seq desc);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop index webhook_deliveries_log_idx;
      create index webhook_deliveries_list_idx on webhook_deliveries (endpoint_id, created_at desc, id desc);
      alter table webhook_deliveries reset (fillfactor);
      -- the body as it was sent, near enough (the feed's view is built in TypeScript)
      update webhook_deliveries d set payload = json_build_object('type', e.type, 'timestamp', e.occurred_at, 'data', to_json(e))
        from domain_events e where d.payload is null and e.id = d.event_id;
      alter table webhook_deliveries drop column claimed_until, drop column stream;
      alter table webhook_deliveries alter column payload set not null;
    `);
  }
}
