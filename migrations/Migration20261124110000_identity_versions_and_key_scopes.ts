import { Migration } from '@mikro-orm/migrations';

/**
 * Versioned identity rows and scoped, rotatable keys (SPEC §2, issue 14).
 *
 * - `version` on users, roles and actors: 1 on creation (existing rows included), +1 on every change;
 *   edits that carry `expectedVersion` update only where the version still matches.
 * - `api_keys.permissions`: null = all of the user's permissions; otherwise the key carries the user's
 *   effective permissions ∩ this list, evaluated on every request.
 * - `api_keys.rotated_from_id`: the key this one replaced. Deferrable, so an import (one transaction,
 *   rows in id order) may load a rotated key before the key it names.
 */
export class Migration20261124110000_identity_versions_and_key_scopes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table users add column version integer not null default 1;
      alter table roles add column version integer not null default 1;
      alter table actors add column version integer not null default 1;
      alter table api_keys add column permissions text[] null;
      alter table api_keys add column rotated_from_id uuid null
        references api_keys (id) on delete set null deferrable initially deferred;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table api_keys drop column rotated_from_id;
      alter table api_keys drop column permissions;
      alter table actors drop column version;
      alter table roles drop column version;
      alter table users drop column version;
    `);
  }
}
