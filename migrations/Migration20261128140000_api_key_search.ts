import { Migration } from '@mikro-orm/migrations';

/**
 * The admin app's global search finds any user's key (GraphQL `apiKeySearch`, issue 36): by the start of its
 * prefix (`text_pattern_ops`, so `like 'mk_Ab%'` is an index range whatever the database's collation) and by a part
 * of its name (a `pg_trgm` GIN index, the extension Migration20261126010000 created). Without them each search
 * read every key of every user.
 */
export class Migration20261128140000_api_key_search extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index api_keys_prefix_idx on api_keys (prefix text_pattern_ops);
      create index api_keys_name_trgm_idx on api_keys using gin (name gin_trgm_ops);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop index api_keys_name_trgm_idx; drop index api_keys_prefix_idx;');
  }
}
