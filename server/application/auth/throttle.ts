// Failed-login throttle (SPEC §6), kept in the database so it holds across server instances.
import type { EntityManager } from '@mikro-orm/postgresql';
import { refuse, type Refusal } from '../../domain/errors.js';
import type { Deps } from '../context.js';

export const LOGIN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_EMAIL = 10;
export const MAX_FAILURES_PER_CLIENT = 100;

/** 429 `rate_limited` with the seconds until the oldest counted failure leaves the window, or null. */
export async function loginThrottle(deps: Deps, email: string, client: string): Promise<Refusal | null> {
  const em = deps.orm.em.fork() as EntityManager;
  const now = deps.clock();
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
  return refuse('rate_limited', `Too many failed sign-in attempts. Try again in ${retryAfterSeconds} seconds.`, { retryAfterSeconds });
}

export async function recordLoginFailure(deps: Deps, email: string, client: string): Promise<void> {
  const em = deps.orm.em.fork() as EntityManager;
  const now = deps.clock();
  await em.execute('insert into login_attempts (id, email, client, attempted_at) values (?, ?, ?, ?)', [deps.newId(), email, client, now]);
  // Housekeeping: rows that left the window count for nothing.
  await em.execute('delete from login_attempts where (email = ? or client = ?) and attempted_at <= ?', [
    email,
    client,
    new Date(now.getTime() - LOGIN_WINDOW_MS),
  ]);
}
