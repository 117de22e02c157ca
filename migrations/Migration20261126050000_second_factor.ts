import { Migration } from '@mikro-orm/migrations';

/**
 * Two-factor for password logins (SPEC §16, issue 35). `user_mfa`: one TOTP enrolment per human, the secret
 * encrypted (AES-256-GCM under a key derived from the server's secret; never in plain text), pending until
 * confirmed with a code; `last_time_step` is the newest TOTP step accepted, so a code is usable once.
 * `user_recovery_codes`: salted SHA-256 of the single-use recovery codes. `mfa_challenges`: the short-lived,
 * single-use `mfaToken`s between the password step and the code step (only their hash is kept).
 */
export class Migration20261126050000_second_factor extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table user_mfa (
        user_id uuid primary key references users (id) on delete cascade,
        secret_ciphertext text not null,
        confirmed_at timestamptz,
        last_time_step bigint,
        created_at timestamptz not null
      );
      create table user_recovery_codes (
        id uuid primary key,
        user_id uuid not null references user_mfa (user_id) on delete cascade,
        code_hash text not null,
        used_at timestamptz
      );
      create index user_recovery_codes_user_idx on user_recovery_codes (user_id);
      create table mfa_challenges (
        id uuid primary key,
        token_hash text not null unique,
        user_id uuid not null references users (id) on delete cascade,
        email text not null,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        failures int not null default 0,
        used_at timestamptz
      );
      create index mfa_challenges_expiry_idx on mfa_challenges (expires_at);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists mfa_challenges; drop table if exists user_recovery_codes; drop table if exists user_mfa;');
  }
}
