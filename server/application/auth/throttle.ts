// Failed-password throttle (SPEC §6), kept in the database so it holds across server instances, and
// reserved before the password check so it holds under a burst of simultaneous attempts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { refuse, type Refusal } from '../../domain/errors.js';
import type { Deps } from '../context.js';

export const LOGIN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_EMAIL = 10;
export const MAX_FAILURES_PER_CLIENT = 100;

// Advisory lock namespaces (two-key form: namespace, hashtext(key)); every reservation takes the email's
// lock before the client's, so two reservations never wait on each other in opposite orders.
const EMAIL_LOCK = 7_301_010;
const CLIENT_LOCK = 7_301_011;

/** 429 `rate_limited` with the seconds until the oldest counted failure leaves the window, or null. */
async function overLimit(em: EntityManager, now: Date, email: string, client: string): Promise<Refusal | null> {
  const since = new Date(now.getTime() - LOGIN_WINDOW_MS);
  const [row] = await em.execute<{ by_email: number; by_client: number; email_nth: string | null; client_nth: string | null }[]>(
    `select
       (select count(*)::int from login_attempts where email = ? and attempted_at > ?) as by_email,
       (select count(*)::int from login_attempts where client = ? and attempted_at > ?) as by_client,
       (select attempted_at from login_attempts where email = ? and attempted_at > ?
          order by attempted_at desc offset ? limit 1) as email_nth,
       (select attempted_at from login_attempts where client = ? and attempted_at > ?
          order by attempted_at desc offset ? limit 1) as client_nth`,
    [email, since, client, since, email, since, MAX_FAILURES_PER_EMAIL - 1, client, since, MAX_FAILURES_PER_CLIENT - 1],
  );
  // Allowed again once the failure that made the count reach the limit has left the window.
  const blockedUntil = [
    row.by_email >= MAX_FAILURES_PER_EMAIL && row.email_nth ? new Date(row.email_nth).getTime() + LOGIN_WINDOW_MS : 0,
    row.by_client >= MAX_FAILURES_PER_CLIENT && row.client_nth ? new Date(row.client_nth).getTime() + LOGIN_WINDOW_MS : 0,
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
  const em = deps.orm.em.fork();
  return em.transactional(async (tx) => {
    await tx.execute('select pg_advisory_xact_lock(?::int, hashtext(?))', [EMAIL_LOCK, email]);
    await tx.execute('select pg_advisory_xact_lock(?::int, hashtext(?))', [CLIENT_LOCK, client]);
    const now = deps.clock();
    const refused = await overLimit(tx, now, email, client);
    if (refused) return refused;
    await tx.execute('insert into login_attempts (id, email, client, attempted_at) values (?, ?, ?, ?)', [deps.newId(), email, client, now]);
    // Housekeeping: rows that left the window count for nothing.
    await tx.execute('delete from login_attempts where (email = ? or client = ?) and attempted_at <= ?', [
      email,
      client,
      new Date(now.getTime() - LOGIN_WINDOW_MS),
    ]);
    return null;
  });
}

/** A right password resets the email's count (the client's other attempts stay counted). */
export async function clearPasswordAttempts(tx: EntityManager, email: string): Promise<void> {
  await tx.execute('delete from login_attempts where email = ?', [email]);
}
