// The kept answers of idempotent retries (SPEC §12): claim a key, keep its answer, release it, find it.
import type { EntityManager } from '@mikro-orm/postgresql';

/** Whose key it is: the user, and the API key when the request carried one (null for a password session). */
export interface IdempotencyScope {
  userId: string;
  apiKeyId: string | null;
}

export interface IdempotencyClaim {
  scope: IdempotencyScope;
  key: string;
  method: string;
  path: string;
  requestHash: string;
  now: Date;
  expiresAt: Date;
}

export interface IdempotencyRow {
  method: string;
  path: string;
  request_hash: string;
  state: 'in_progress' | 'done';
  status: number | null;
  response: unknown;
}

const SCOPE = 'user_id = ? and api_key_id is not distinct from ? and idempotency_key = ?';
const scopeParams = (scope: IdempotencyScope, key: string) => [scope.userId, scope.apiKeyId, key];

/**
 * Claims the key for a first attempt: true when this call inserted the row, false when a row is there
 * (running or done). An expired row no longer counts: it is deleted first. Run it in its own short
 * transaction, committed before the request's work starts, so every instance sees the claim at once.
 */
export async function claimIdempotencyKey(tx: EntityManager, claim: IdempotencyClaim): Promise<boolean> {
  await tx.execute(`delete from idempotency_keys where ${SCOPE} and expires_at <= ?`, [...scopeParams(claim.scope, claim.key), claim.now]);
  const inserted = await tx.execute<{ claimed: boolean }[]>(
    `insert into idempotency_keys (user_id, api_key_id, idempotency_key, method, path, request_hash, state, created_at, expires_at)
     values (?, ?, ?, ?, ?, ?, 'in_progress', ?, ?) on conflict do nothing returning true as claimed`,
    [claim.scope.userId, claim.scope.apiKeyId, claim.key, claim.method, claim.path, claim.requestHash, claim.now, claim.expiresAt],
  );
  return inserted.length === 1;
}

export async function findIdempotencyKey(em: EntityManager, scope: IdempotencyScope, key: string, now: Date): Promise<IdempotencyRow | null> {
  const [row] = await em.execute<IdempotencyRow[]>(
    `select method, path, request_hash, state, status, response from idempotency_keys where ${SCOPE} and expires_at > ?`,
    [...scopeParams(scope, key), now],
  );
  return row ?? null;
}

/** Keeps the first attempt's answer for the retries to come. */
export async function keepIdempotentAnswer(em: EntityManager, scope: IdempotencyScope, key: string, status: number, response: unknown): Promise<void> {
  await em.execute(`update idempotency_keys set state = 'done', status = ?, response = ?::jsonb where ${SCOPE} and state = 'in_progress'`, [
    status,
    JSON.stringify(response ?? null),
    ...scopeParams(scope, key),
  ]);
}

/** Gives the key back after a first attempt that failed on our side, so a retry runs it again. */
export async function releaseIdempotencyKey(em: EntityManager, scope: IdempotencyScope, key: string): Promise<void> {
  await em.execute(`delete from idempotency_keys where ${SCOPE} and state = 'in_progress'`, scopeParams(scope, key));
}
