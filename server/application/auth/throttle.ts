// Failed-password throttle (SPEC §6), kept in the database so it holds across server instances, and
// reserved before the password check so it holds under a burst of simultaneous attempts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ok, refuse, type Refusal } from '../../domain/errors.js';
import { clearAttemptsOf, countAttempts, lockAttemptsOf, recordAttempt } from '../../persistence/login-attempts.js';
import { transact } from '../../persistence/transaction.js';
import type { Deps } from '../context.js';

export const LOGIN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_EMAIL = 10;
export const MAX_FAILURES_PER_CLIENT = 100;

/** 429 `rate_limited` with the seconds until the oldest counted failure leaves the window, or null. */
async function overLimit(em: EntityManager, now: Date, email: string, client: string): Promise<Refusal | null> {
  const since = new Date(now.getTime() - LOGIN_WINDOW_MS);
  const counts = await countAttempts(em, since, { email, client }, { email: MAX_FAILURES_PER_EMAIL, client: MAX_FAILURES_PER_CLIENT });
  // Allowed again once the failure that made the count reach the limit has left the window.
  const blockedUntil = [
    counts.byEmail >= MAX_FAILURES_PER_EMAIL && counts.emailNth ? counts.emailNth.getTime() + LOGIN_WINDOW_MS : 0,
    counts.byClient >= MAX_FAILURES_PER_CLIENT && counts.clientNth ? counts.clientNth.getTime() + LOGIN_WINDOW_MS : 0,
  ].reduce((a, b) => Math.max(a, b), 0);
  if (blockedUntil <= now.getTime()) return null;
  const retryAfterSeconds = Math.max(1, Math.ceil((blockedUntil - now.getTime()) / 1000));
  return refuse('rate_limited', `Too many failed password attempts. Try again in ${retryAfterSeconds} seconds.`, { retryAfterSeconds });
}

/**
 * Reserves one password attempt for `email` from `client`, or refuses it with 429 before any password check.
 * Under the email's and the client's advisory locks it counts the window and records the attempt as a
 * failure, in one short transaction that ends before the (slow) check: so of N simultaneous attempts at most
 * the limit get through. A wrong password leaves the row as its record; a right one clears the email's rows
 * (`clearPasswordAttempts`, in the caller's transaction).
 */
export async function reservePasswordAttempt(deps: Deps, email: string, client: string): Promise<Refusal | null> {
  return transact(deps.orm, async (tx) => {
    await lockAttemptsOf(tx, email, client);
    const now = deps.clock();
    const refused = await overLimit(tx, now, email, client);
    if (refused) return refused;
    await recordAttempt(tx, { id: deps.newId(), email, client, at: now }, new Date(now.getTime() - LOGIN_WINDOW_MS));
    return ok(null);
  }).then((r) => (r.ok ? null : r));
}

/** A right password resets the email's count (the client's other attempts stay counted). */
export async function clearPasswordAttempts(tx: EntityManager, email: string): Promise<void> {
  await clearAttemptsOf(tx, email);
}
