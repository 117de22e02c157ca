// Whether PostgreSQL's `shared_buffers` hold the `tensions` table and its indexes (docs/operations.md). A search
// of a common word walks the list's order through the sort's index (a few hundred pages, and as many of the
// table's since Migration20261130130000; a few thousand of the table's before); what is not in
// `shared_buffers` is read from the operating system's cache, several times slower a statement at a million
// tensions (bench/README.md, 2026-11-30). A start says which, so an operator learns it from the log rather
// than from the first slow searches.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../logger.js';

export interface BufferSizing {
  sharedBuffersBytes: number;
  /** the table, its indexes and its TOAST */
  tensionsBytes: number;
}

export async function bufferSizing(em: EntityManager): Promise<BufferSizing> {
  const [row] = await em.execute<{ shared: string; tensions: string }[]>(
    `select pg_size_bytes(current_setting('shared_buffers'))::text as shared, pg_total_relation_size('tensions')::text as tensions`,
  );
  return { sharedBuffersBytes: Number(row.shared), tensionsBytes: Number(row.tensions) };
}

/** Logs the sizing once: a warning when the table does not fit, else an info line. Never fails a start. */
export async function reportBufferSizing(em: EntityManager, logger: Logger): Promise<void> {
  try {
    const sizing = await bufferSizing(em);
    if (sizing.tensionsBytes > sizing.sharedBuffersBytes) {
      logger.warn(
        sizing,
        'database: shared_buffers is smaller than the tensions table and its indexes, so searches may read their pages from the operating system (docs/operations.md)',
      );
    } else logger.info(sizing, 'database: shared_buffers holds the tensions table and its indexes');
  } catch (err) {
    logger.warn({ err }, 'database: could not compare shared_buffers with the tensions table');
  }
}
