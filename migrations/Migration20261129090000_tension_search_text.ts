import { Migration } from '@mikro-orm/migrations';

/**
 * `tensions.search_text`: the three searchable texts, each lower-cased, joined by U+001F (issue 37: a common
 * word's search stays fast at a million tensions).
 *
 * A search walks the list's order and tests each row for the text
 * (`tensionWalkSql`). Tested with three `ILIKE`s, a row cost about 2.8 µs, nearly all of it `lower()` of
 * the pattern and of each text, per row, under `C.UTF-8`; reading the row itself costs about 0.6 µs. With
 * the texts lower-cased once, when written, the test is one `strpos` (about 0.35 µs): 10,000 rows of the
 * score order, 29 ms → 10 ms at a million tensions. `strpos(search_text, lower(q)) > 0` answers what the
 * three `ILIKE`s answer: `ILIKE` lower-cases its text and pattern with the same `lower()` and the column's
 * collation, each text is lower-cased alone, and a text that holds the separator is searched the old way
 * (`textMatchSql`), so a match never spans two texts.
 *
 * Stored, generated: every writer (commands, the rebuild, import, bulk SQL) keeps it without a line of
 * its own. It is not indexed (the trigram indexes stay on `tension_search`, which a rescore does not write).
 * Its price: the row holds its texts twice (1,000,000 scale tensions: 268 → 446 MiB), and a rescore, whose
 * update is never HOT, writes the wider row. The row write alone (pgbench, 8 clients, triggers on, the
 * bench's 1,000,000 tensions, 2026-11-29): 5,040-5,200 a second with the column, 5,480-5,700 without
 * (0.92); WAL per row write 6.7-6.8 KB against 5.9-6.6 KB. Adding the column rewrites the table under an
 * exclusive lock: 15 s for 1,000,000 tensions on these machines (docs/operations.md).
 */
export class Migration20261129090000_tension_search_text extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table tensions add column search_text text generated always as (
        lower(name) || E'\\x1f' || lower(coalesce(current_context, '')) || E'\\x1f' || lower(coalesce(potential_future, ''))
      ) stored;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table tensions drop column search_text;`);
  }
}
