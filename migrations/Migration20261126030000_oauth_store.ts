import { Migration } from '@mikro-orm/migrations';

/**
 * The OAuth authorization server's storage (SPEC §13, issue 32): one table for every kind oidc-provider keeps
 * (grants, registered clients, codes, access and refresh tokens, sessions, interactions).
 *
 * Bearer secrets are stored as keys are: `id` is the SHA-256 of the value for every kind but `Grant` and
 * `Client`, whose ids are no credentials (a grant's id is what connected apps and event metadata name).
 * `grant_id` and `user_id` are columns so revoking a grant and listing a person's connected apps are index
 * reads; `client_name`/`client_verified` are what the consent recorded about the client, since a client
 * known by its metadata document is not stored here.
 */
export class Migration20261126030000_oauth_store extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table oauth_store (
        kind text not null,
        id text not null,
        payload jsonb not null,
        grant_id text null,
        user_id uuid null references users (id) on delete cascade,
        uid text null,
        client_name text null,
        client_verified boolean null,
        created_at timestamptz not null default now(),
        expires_at timestamptz null,
        consumed_at timestamptz null,
        last_used_at timestamptz null,
        primary key (kind, id)
      );
      create index oauth_store_grant_idx on oauth_store (grant_id) where grant_id is not null;
      create index oauth_store_user_idx on oauth_store (user_id, kind) where user_id is not null;
      create index oauth_store_uid_idx on oauth_store (uid) where uid is not null;
      create index oauth_store_expires_idx on oauth_store (expires_at) where expires_at is not null;
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table oauth_store;');
  }
}
