import { Migration } from '@mikro-orm/migrations';

/**
 * A rotated key's overlap end, kept apart from its own expiry (issue 30).
 *
 * Rotation used to cut `expires_at` to the end of the overlap, so the key's own expiry was lost: rotating
 * it again during the overlap minted a key that died with the overlap. Now rotation writes only
 * `overlap_ends_at`; `expires_at` stays the expiry the key was made with, which a rotation copies. A key
 * works until the sooner of the two (`least` skips nulls). Keys rotated before this migration keep the
 * expiry they were cut to: the original is not known any more.
 */
export class Migration20261125120000_api_key_overlap_end extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table api_keys add column overlap_ends_at timestamptz null;');
  }

  override async down(): Promise<void> {
    // Folds the overlap back into the expiry, as it was stored before.
    this.addSql(`
      update api_keys set expires_at = least(expires_at, overlap_ends_at) where overlap_ends_at is not null;
      alter table api_keys drop column overlap_ends_at;
    `);
  }
}
