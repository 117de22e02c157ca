// API key rows (SPEC §2, API key): creation, listing, revocation and rotation with overlap.
import { likePattern } from './transaction.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray, userGrantsSql } from './role-graph.js';
import { prepared } from './statements.js';

// A key has its own expiry (`expires_at`, chosen at creation, copied by rotation) and, once rotated, the end
// of its overlap (`overlap_ends_at`). It works until the sooner of the two: `least` skips nulls, so the SQL
// below is the one definition of when a key ends, and the metadata's `expiresAt` shows that instant.
const ENDS_AT = 'least(expires_at, overlap_ends_at)';

export interface RotatableKey {
  id: string;
  name: string;
  permissions: string[] | null;
  /** the key's own expiry, before any overlap: what a rotation copies */
  ownExpiresAt: Date | null;
  /** when it stops working: the sooner of its own expiry and the end of an overlap */
  endsAt: Date | null;
  revokedAt: Date | null;
}

/** The key `keyId` of `userId`, locked until the transaction ends (two rotations of one key run in turn); null when absent. */
export async function lockUserKey(tx: EntityManager, userId: string, keyId: string): Promise<RotatableKey | null> {
  const [row] = await tx.execute<
    {
      id: string;
      name: string;
      permissions: string[] | null;
      expires_at: Date | string | null;
      ends_at: Date | string | null;
      revoked_at: Date | string | null;
    }[]
  >(`select id, name, permissions, expires_at, ${ENDS_AT} as ends_at, revoked_at from api_keys where id = ? and user_id = ? for update`, [keyId, userId]);
  if (!row) return null;
  const date = (v: Date | string | null) => (v === null ? null : new Date(v));
  return {
    id: row.id,
    name: row.name,
    permissions: row.permissions,
    ownExpiresAt: date(row.expires_at),
    endsAt: date(row.ends_at),
    revokedAt: date(row.revoked_at),
  };
}

/**
 * The key's overlap ends at `at`, or stays at an earlier end already set (a second rotation never lengthens
 * the first one's overlap); its own expiry is left as it is (the key stops at whichever comes first).
 */
export async function endOverlapBy(tx: EntityManager, keyId: string, at: Date): Promise<void> {
  await tx.execute('update api_keys set overlap_ends_at = least(overlap_ends_at, ?) where id = ?', [at, keyId]);
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

const KEY_COLUMNS = `id, name, prefix, created_at, last_used_at, ${ENDS_AT} as expires_at, revoked_at, permissions, rotated_from_id`;

export interface KeyHitRow extends KeyRow {
  user_id: string;
  user_name: string;
  user_type: 'human' | 'agent';
}

/**
 * Keys of any user whose prefix starts with `text` (as typed: a key is case-sensitive), whose name holds it
 * (case-insensitively), or whose id it is; live keys first, newest first. Served by `api_keys_prefix_idx` and
 * `api_keys_name_trgm_idx`, so it never reads every key.
 */
export async function searchKeyRows(em: EntityManager, text: string, id: string | null, limit: number): Promise<KeyHitRow[]> {
  const startsWith = `${likePattern(text).slice(1, -1)}%`;
  return em.execute<KeyHitRow[]>(
    `select k.id, k.name, k.prefix, k.created_at, k.last_used_at, least(k.expires_at, k.overlap_ends_at) as expires_at, k.revoked_at,
            k.permissions, k.rotated_from_id, u.id as user_id, u.name as user_name, u.type as user_type
     from api_keys k join users u on u.id = k.user_id
     where k.id in (
       (select id from api_keys where prefix like ? order by created_at desc limit ?)
       union (select id from api_keys where name ilike ? order by created_at desc limit ?)
       union (select id from api_keys where id = ?::uuid))
     order by (k.revoked_at is null) desc, k.created_at desc, k.id desc limit ?`,
    [startsWith, limit, likePattern(text), limit, id, limit],
  );
}

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

export interface KeyHolder {
  id: string;
  name: string;
  user_id: string;
  user_name: string;
  type: 'human' | 'agent';
  /** the user's effective grants */
  grants: string[] | null;
  /** the key's own narrowing (null: all of the user's) */
  permissions: string[] | null;
  last_used_at: string | Date | null;
}

/** The key lookup of every bearer request: parameters (key hash, now). */
export const keyHolderSql = `select k.id, k.name, k.user_id, k.last_used_at, k.permissions, u.type, u.name as user_name, ${userGrantsSql('u.id')} as grants
     from api_keys k join users u on u.id = k.user_id
     where k.key_hash = ? and k.revoked_at is null and coalesce(least(k.expires_at, k.overlap_ends_at) > ?, true)
       and u.status = 'active'`;

/** The live key with this hash (not revoked, not expired at `now`) of an active user, with the user's grants; null when none. */
export function keyHolder(em: EntityManager, keyHash: string, now: Date): Promise<KeyHolder | null> {
  return prepared<KeyHolder>(em, keyHolderSql, [keyHash, now]).then((rows) => rows[0] ?? null);
}

/**
 * Records the key's use at `now` unless one was recorded within `resolutionMs` (one write a minute across
 * instances), and in the same statement adds `requests` (those counted since this instance's last write) to
 * the key's count of the UTC day (the operator dashboard). Answers whether it wrote; when not, the caller
 * keeps its count for the next write.
 */
export async function recordKeyUse(em: EntityManager, keyId: string, now: Date, resolutionMs: number, requests = 1): Promise<boolean> {
  const rows = await prepared(
    em,
    `with k as (update api_keys set last_used_at = ? where id = ? and (last_used_at is null or last_used_at <= ?) returning id)
     insert into api_key_use_days (key_id, day, requests) select id, (?::timestamptz at time zone 'UTC')::date, ? from k
     on conflict (key_id, day) do update set requests = api_key_use_days.requests + excluded.requests returning key_id`,
    [now, keyId, new Date(now.getTime() - resolutionMs), now, requests],
  );
  return rows.length > 0;
}
