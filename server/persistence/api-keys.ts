// API key rows (SPEC §2, API key): creation, listing, revocation and rotation with overlap.
import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from './role-graph.js';

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

export interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  expires_at: Date | string | null;
  revoked_at: Date | string | null;
  permissions: string[] | null;
  rotated_from_id: string | null;
}

const KEY_COLUMNS = 'id, name, prefix, created_at, last_used_at, expires_at, revoked_at, permissions, rotated_from_id';

export async function keyRowById(em: EntityManager, keyId: string): Promise<KeyRow | null> {
  const [row] = await em.execute<KeyRow[]>(`select ${KEY_COLUMNS} from api_keys where id = ?`, [keyId]);
  return row ?? null;
}

export interface NewKey {
  id: string;
  userId: string;
  name: string;
  prefix: string;
  /** the hash only: the plaintext is never stored */
  keyHash: string;
  createdAt: Date;
  expiresAt: Date | null;
  permissions: readonly string[] | null;
  rotatedFromId: string | null;
}

export async function insertKey(tx: EntityManager, k: NewKey): Promise<KeyRow> {
  const [row] = await tx.execute<KeyRow[]>(
    `insert into api_keys (id, user_id, name, prefix, key_hash, created_at, expires_at, permissions, rotated_from_id)
     values (?, ?, ?, ?, ?, ?, ?, ?::text[], ?)
     returning ${KEY_COLUMNS}`,
    [k.id, k.userId, k.name, k.prefix, k.keyHash, k.createdAt, k.expiresAt, k.permissions && pgArray(k.permissions), k.rotatedFromId],
  );
  return row;
}

/** Up to `take` keys of the user, newest first, before the `(created_at, id)` of `before`. */
export async function keyRowsOf(em: EntityManager, userId: string, before: readonly [string, string] | undefined, take: number): Promise<KeyRow[]> {
  return em.execute<KeyRow[]>(
    `select ${KEY_COLUMNS} from api_keys where user_id = ?
       and (?::timestamptz is null or (created_at, id) < (?::timestamptz, ?::uuid))
     order by created_at desc, id desc limit ?`,
    [userId, before?.[0] ?? null, before?.[0] ?? null, before?.[1] ?? null, take],
  );
}

/**
 * Revokes the key `keyId` of `userId` at `at`; an already revoked key keeps its first revocation time.
 * Its name and the revocation time it had before (null: this call revoked it); null when there is no such key.
 */
export async function revokeKey(tx: EntityManager, userId: string, keyId: string, at: Date): Promise<{ name: string; previous: Date | string | null } | null> {
  const [row] = await tx.execute<{ name: string; previous: Date | string | null }[]>(
    `with old as (select id, revoked_at from api_keys where id = ? and user_id = ? for update)
     update api_keys k set revoked_at = coalesce(old.revoked_at, ?) from old where k.id = old.id returning k.name, old.revoked_at as previous`,
    [keyId, userId, at],
  );
  return row ?? null;
}

/** Revokes every live key of the user. */
export async function revokeKeysOf(tx: EntityManager, userId: string, at: Date): Promise<void> {
  await tx.execute('update api_keys set revoked_at = ? where user_id = ? and revoked_at is null', [at, userId]);
}
