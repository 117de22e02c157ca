// The failed-password record behind the login throttle (SPEC §6), shared by every server instance.
import type { EntityManager } from '@mikro-orm/postgresql';

// Advisory lock namespaces (two-key form: namespace, hashtext(key)); every reservation takes the email's
// lock before the client's, so two reservations never wait on each other in opposite orders.
const EMAIL_LOCK = 7_301_010;
const CLIENT_LOCK = 7_301_011;

/** Serialises the reservations of one email and of one client until the transaction ends. */
export async function lockAttemptsOf(tx: EntityManager, email: string, client: string): Promise<void> {
  await tx.execute('select pg_advisory_xact_lock(?::int, hashtext(?))', [EMAIL_LOCK, email]);
  await tx.execute('select pg_advisory_xact_lock(?::int, hashtext(?))', [CLIENT_LOCK, client]);
}

export interface AttemptCounts {
  byEmail: number;
  byClient: number;
  /** when the `emailLimit`-th newest attempt of the email was made (null when fewer) */
  emailNth: Date | null;
  clientNth: Date | null;
}

/** The attempts since `since` by email and by client, and when the one that reached each limit happened. */
export async function countAttempts(
  em: EntityManager,
  since: Date,
  key: { email: string; client: string },
  limits: { email: number; client: number },
): Promise<AttemptCounts> {
  const { email, client } = key;
  const [row] = await em.execute<{ by_email: number; by_client: number; email_nth: string | Date | null; client_nth: string | Date | null }[]>(
    `select
       (select count(*)::int from login_attempts where email = ? and attempted_at > ?) as by_email,
       (select count(*)::int from login_attempts where client = ? and attempted_at > ?) as by_client,
       (select attempted_at from login_attempts where email = ? and attempted_at > ?
          order by attempted_at desc offset ? limit 1) as email_nth,
       (select attempted_at from login_attempts where client = ? and attempted_at > ?
          order by attempted_at desc offset ? limit 1) as client_nth`,
    [email, since, client, since, email, since, limits.email - 1, client, since, limits.client - 1],
  );
  const at = (v: string | Date | null) => (v === null ? null : new Date(v));
  return { byEmail: row.by_email, byClient: row.by_client, emailNth: at(row.email_nth), clientNth: at(row.client_nth) };
}

/** Records one attempt and drops this email's and client's rows that left the window (they count for nothing). */
export async function recordAttempt(tx: EntityManager, attempt: { id: string; email: string; client: string; at: Date }, windowStart: Date): Promise<void> {
  await tx.execute('insert into login_attempts (id, email, client, attempted_at) values (?, ?, ?, ?)', [attempt.id, attempt.email, attempt.client, attempt.at]);
  await tx.execute('delete from login_attempts where (email = ? or client = ?) and attempted_at <= ?', [attempt.email, attempt.client, windowStart]);
}

export async function clearAttemptsOf(tx: EntityManager, email: string): Promise<void> {
  await tx.execute('delete from login_attempts where email = ?', [email]);
}
