import { Migration } from '@mikro-orm/migrations';

/** Failed logins, kept in the database so the throttle (SPEC §6) holds across server instances. */
export class Migration20261122010000_login_attempts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table login_attempts (
        id uuid primary key,
        email text not null,
        client text not null,
        attempted_at timestamptz not null
      );
      create index login_attempts_email_idx on login_attempts (email, attempted_at);
      create index login_attempts_client_idx on login_attempts (client, attempted_at);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists login_attempts;');
  }
}
