import { Migration } from '@mikro-orm/migrations';

/**
 * The audit trail (SPEC §11, issue 14): one row per identity or administration action, written in the
 * same transaction as the change. Append-only like `domain_events`: the database itself refuses UPDATE,
 * DELETE and TRUNCATE, so not even a bug in the service can rewrite who did what.
 *
 * No foreign keys: an entry outlives what it names (a deleted role or actor stays accounted for), and the
 * `by_*`/`target_label` columns copy names as they were at the time.
 */
export class Migration20261124100000_audit_log extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table audit_log (
        id uuid primary key,
        at timestamptz not null,
        action text not null,
        by_kind text not null check (by_kind in ('human', 'agent', 'system', 'anonymous')),
        by_user_id uuid,
        by_user_name text,
        by_api_key_id uuid,
        by_api_key_name text,
        via text not null check (via in ('graphql', 'rest', 'mcp', 'cli')),
        target_type text not null,
        target_id uuid,
        target_label text,
        changes jsonb not null default '{}'::jsonb,
        request_id text,
        client_address text
      );
      -- Newest first, with the id as the tie-break of the keyset cursor; one index per filter.
      create index audit_log_at_idx on audit_log (at desc, id desc);
      create index audit_log_action_idx on audit_log (action, at desc, id desc);
      create index audit_log_target_idx on audit_log (target_type, target_id, at desc, id desc);
      create index audit_log_by_user_idx on audit_log (by_user_id, at desc, id desc);

      create function audit_log_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'audit_log is append-only: % refused', tg_op using errcode = 'P0001';
      end
      $$;
      create trigger audit_log_no_update_delete before update or delete on audit_log
        for each row execute function audit_log_append_only();
      create trigger audit_log_no_truncate before truncate on audit_log
        for each statement execute function audit_log_append_only();
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop table audit_log;
      drop function audit_log_append_only();
    `);
  }
}
