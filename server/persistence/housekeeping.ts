// Deletes rows that can no longer matter, so the tables that grow with every sign-in stay small.
import type { EntityManager } from '@mikro-orm/postgresql';

export interface HousekeepingReport {
  sessions: number;
  loginAttempts: number;
  idempotencyKeys: number;
}

/**
 * Sessions past their expiry or revoked are refused by authentication whether or not their row exists;
 * failed logins older than the throttle window count for nothing; kept idempotent answers past their
 * expiry are no longer replayed (SPEC §12). Each delete is one short statement.
 */
export async function deleteExpired(em: EntityManager, now: Date, loginWindowMs: number): Promise<HousekeepingReport> {
  const sessions = await em.execute<{ n: number }[]>(
    'with gone as (delete from sessions where expires_at <= ? or revoked_at is not null returning 1) select count(*)::int as n from gone',
    [now],
  );
  const attempts = await em.execute<{ n: number }[]>(
    'with gone as (delete from login_attempts where attempted_at <= ? returning 1) select count(*)::int as n from gone',
    [new Date(now.getTime() - loginWindowMs)],
  );
  const idempotency = await em.execute<{ n: number }[]>(
    'with gone as (delete from idempotency_keys where expires_at <= ? returning 1) select count(*)::int as n from gone',
    [now],
  );
  return { sessions: sessions[0].n, loginAttempts: attempts[0].n, idempotencyKeys: idempotency[0].n };
}
