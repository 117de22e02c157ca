import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks (SPEC §14, issue 33): endpoints with their signing secrets and their own feed checkpoint, and
 * deliveries as rows with their attempts and next-attempt times.
 *
 * An endpoint's checkpoint (`checkpoint_tid`, `checkpoint_pos`) is the feed cursor up to which its
 * deliveries have been written; it advances in the transaction that inserts them, under the endpoint's
 * row lock, so a crash never loses nor doubles one. `lane_holder`/`lane_until` is a lease on the endpoint's
 * first attempts: one instance at a time sends them, in feed order (`seq`). A delivery is claimed by an
 * update that counts the attempt (`attempts + 1`) and moves `next_attempt_at` past the attempt's longest
 * run, so one attempt runs once and a crashed one becomes due again. `failing_since` is the start of an
 * unbroken run of failures (the five-day rule).
 */
export class Migration20261126040000_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table webhook_endpoints (
        id uuid primary key,
        url text not null,
        description text null,
        types text[] null,
        enabled boolean not null default true,
        disabled_reason text null check (disabled_reason in ('manual', 'gone', 'failing')),
        secret text not null,
        previous_secret text null,
        previous_secret_until timestamptz null,
        checkpoint_tid xid8 not null default '0'::xid8,
        checkpoint_pos bigint not null default 0,
        lane_holder text null,
        lane_until timestamptz null,
        failing_since timestamptz null,
        version int not null default 1,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
      create index webhook_endpoints_created_idx on webhook_endpoints (created_at, id);

      create table webhook_deliveries (
        id uuid primary key,
        seq bigserial not null,
        endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
        message_id text not null,
        event_id uuid null,
        event_type text not null,
        payload json not null,
        status text not null default 'pending' check (status in ('pending', 'succeeded', 'retrying', 'failed')),
        attempts int not null default 0,
        next_attempt_at timestamptz null,
        last_attempt_at timestamptz null,
        last_response_status int null,
        last_response_body text null,
        last_error text null,
        duration_ms int null,
        created_at timestamptz not null
      );
      create index webhook_deliveries_first_idx on webhook_deliveries (endpoint_id, seq) where attempts = 0 and status = 'pending';
      create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where attempts > 0 and status in ('pending', 'retrying');
      create index webhook_deliveries_list_idx on webhook_deliveries (endpoint_id, created_at desc, id desc);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table webhook_deliveries; drop table webhook_endpoints;');
  }
}
