// The kept answers of idempotent retries (SPEC §12): find a key's row, take the key for a first attempt,
// keep its answer. Every function runs inside the request's own transaction (application/idempotency.ts).
import type { EntityManager } from '@mikro-orm/postgresql';

/** Whose key it is: the user, and the API key when the request carried one (null for a password session). */
export interface IdempotencyScope {
  userId: string;
  apiKeyId: string | null;
}

export interface IdempotencyRow {
  method: string;
  path: string;
  request_hash: string;
  /** `in_progress` rows are only left by earlier versions, which committed the claim before the work */
  state: 'in_progress' | 'done';
  status: number | null;
  response: unknown;
  created_at: Date;
  expires_at: Date;
}

export interface KeptAnswer {
  scope: IdempotencyScope;
  key: string;
  method: string;
  path: string;
  requestHash: string;
  status: number;
  response: unknown;
  now: Date;
  expiresAt: Date;
}

const SCOPE = 'user_id = ? and api_key_id is not distinct from ? and idempotency_key = ?';
const scopeParams = (scope: IdempotencyScope, key: string) => [scope.userId, scope.apiKeyId, key];

/**
 * Takes the key for this transaction, or answers false at once when another transaction holds it (a
 * first attempt still running, on any instance). Released by the commit or rollback, so it never
 * outlives its request. On the embedded database, which runs one transaction at a time, it is always free.
 */
export async function lockIdempotencyKey(tx: EntityManager, scope: IdempotencyScope, key: string): Promise<boolean> {
  const [row] = await tx.execute<{ locked: boolean }[]>(`select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked`, [
    JSON.stringify(['idempotency', scope.userId, scope.apiKeyId, key]),
  ]);
  return row.locked;
}

/** The key's row, expired or not (the caller decides), as committed before the lock was taken. */
export async function findIdempotencyKey(tx: EntityManager, scope: IdempotencyScope, key: string): Promise<IdempotencyRow | null> {
  const [row] = await tx.execute<IdempotencyRow[]>(
    `select method, path, request_hash, state, status, response, created_at, expires_at from idempotency_keys where ${SCOPE}`,
    scopeParams(scope, key),
  );
  return row ?? null;
}

/** Removes a row that no longer counts (expired, or an abandoned claim of an earlier version). */
export async function forgetIdempotencyKey(tx: EntityManager, scope: IdempotencyScope, key: string): Promise<void> {
  await tx.execute(`delete from idempotency_keys where ${SCOPE}`, scopeParams(scope, key));
}

/**
 * Keeps the first attempt's answer, in the transaction of its write: the answer and the write commit
 * together or not at all. False when a row appeared meanwhile (an earlier version's claim, which takes
 * no lock): the caller then rolls its work back.
 */
export async function keepIdempotentAnswer(tx: EntityManager, a: KeptAnswer): Promise<boolean> {
  const inserted = await tx.execute<{ kept: boolean }[]>(
    `insert into idempotency_keys (user_id, api_key_id, idempotency_key, method, path, request_hash, state, status, response, created_at, expires_at)
     values (?, ?, ?, ?, ?, ?, 'done', ?, ?::jsonb, ?, ?) on conflict do nothing returning true as kept`,
    [a.scope.userId, a.scope.apiKeyId, a.key, a.method, a.path, a.requestHash, a.status, JSON.stringify(a.response ?? null), a.now, a.expiresAt],
  );
  return inserted.length === 1;
}
