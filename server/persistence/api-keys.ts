// API key rows that rotation reads and changes (SPEC §2, API key: rotation with overlap).
import type { EntityManager } from '@mikro-orm/postgresql';

export interface RotatableKey {
  id: string;
  name: string;
  permissions: string[] | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** The key `keyId` of `userId`, locked until the transaction ends (two rotations of one key run in turn); null when absent. */
export async function lockUserKey(tx: EntityManager, userId: string, keyId: string): Promise<RotatableKey | null> {
  const [row] = await tx.execute<{ id: string; name: string; permissions: string[] | null; expires_at: Date | string | null; revoked_at: Date | string | null }[]>(
    'select id, name, permissions, expires_at, revoked_at from api_keys where id = ? and user_id = ? for update',
    [keyId, userId],
  );
  if (!row) return null;
  const date = (v: Date | string | null) => (v === null ? null : new Date(v));
  return { id: row.id, name: row.name, permissions: row.permissions, expiresAt: date(row.expires_at), revokedAt: date(row.revoked_at) };
}

/** The key stops working at `at`, or at its own expiry if that comes sooner. */
export async function expireKeyBy(tx: EntityManager, keyId: string, at: Date): Promise<void> {
  await tx.execute('update api_keys set expires_at = least(coalesce(expires_at, ?), ?) where id = ?', [at, at, keyId]);
}
