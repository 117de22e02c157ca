// Versions of identity rows (SPEC §2: users, roles and actors carry `version`, +1 on every change).
import type { EntityManager } from '@mikro-orm/postgresql';

type VersionedTable = 'users' | 'roles' | 'actors';

/**
 * Locks the row until the transaction ends and returns its version (null: no such row). An edit checks the
 * client's `expectedVersion` against this and writes under the same lock, so of two concurrent edits that
 * expected the same version, the second waits, then sees the first's version and is refused.
 */
export async function lockRowVersion(tx: EntityManager, table: VersionedTable, id: string): Promise<number | null> {
  const [row] = await tx.execute<{ version: number }[]>(`select version from ${table} where id = ? for update`, [id]);
  return row ? row.version : null;
}
