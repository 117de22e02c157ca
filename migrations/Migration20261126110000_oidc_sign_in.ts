import { Migration } from '@mikro-orm/migrations';

/**
 * OpenID Connect single sign-on (SPEC §16, issue 35). `users.provisioned_by = 'oidc'` marks a user created
 * on their first single sign-on; `user_roles.source = 'oidc'` marks a role assignment the role mapping made
 * (`manual`: given by hand, through the API). On each sign-in of a provisioned user the mapping adds and
 * removes only `oidc` assignments, so a role given by hand is never taken away by a group change.
 */
export class Migration20261126110000_oidc_sign_in extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table users add column provisioned_by text check (provisioned_by in ('oidc'));
      alter table user_roles add column source text not null default 'manual' check (source in ('manual', 'oidc'));
    `);
  }

  override async down(): Promise<void> {
    this.addSql('alter table user_roles drop column if exists source; alter table users drop column if exists provisioned_by;');
  }
}
