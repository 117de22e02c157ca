import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotent retries (SPEC §12, issue 15).
 *
 * One row per (caller, Idempotency-Key): the user, and the API key when the request carried one (a
 * password session has none, so `nulls not distinct` makes the session's scope one value). The row is
 * claimed (`in_progress`) in its own short transaction before the request runs, so a concurrent duplicate
 * finds it, on any instance; once the request has answered, its status and body are kept (`done`) until
 * `expires_at`, when housekeeping deletes it. `request_hash` is an HMAC of method, path and body, so a
 * body that held a password is not kept in a crackable form.
 */
export class Migration20261124120000_idempotency_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table idempotency_keys (
        user_id uuid not null references users (id) on delete cascade,
        api_key_id uuid,
        idempotency_key text not null,
        method text not null,
        path text not null,
        request_hash text not null,
        state text not null default 'in_progress' check (state in ('in_progress', 'done')),
        status int,
        response jsonb,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        constraint idempotency_keys_scope_key unique nulls not distinct (user_id, api_key_id, idempotency_key)
      );
      create index idempotency_keys_expires_at on idempotency_keys (expires_at);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table idempotency_keys;');
  }
}
