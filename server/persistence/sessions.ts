// Session rows (SPEC §6): created at sign-in, revoked by sign-out, password changes and deactivation.
import type { EntityManager } from '@mikro-orm/postgresql';

export async function insertSession(tx: EntityManager, s: { id: string; userId: string; createdAt: Date; expiresAt: Date }): Promise<void> {
  await tx.execute('insert into sessions (id, user_id, created_at, expires_at) values (?, ?, ?, ?)', [s.id, s.userId, s.createdAt, s.expiresAt]);
}

/** Revokes every live session of the user, or every one but `keep` (the caller's own) when given. */
export async function revokeSessionsOf(tx: EntityManager, userId: string, at: Date, keep?: string | null): Promise<void> {
  if (keep === undefined) {
    await tx.execute('update sessions set revoked_at = ? where user_id = ? and revoked_at is null', [at, userId]);
  } else {
    await tx.execute('update sessions set revoked_at = ? where user_id = ? and id <> ? and revoked_at is null', [at, userId, keep]);
  }
}

/** Revokes one session (an already revoked one keeps its time); its user's email, null when there is no such session. */
export async function revokeSession(tx: EntityManager, sessionId: string, at: Date): Promise<string | null> {
  const [session] = await tx.execute<{ email: string }[]>(
    'update sessions s set revoked_at = coalesce(s.revoked_at, ?) from users u where s.id = ? and u.id = s.user_id returning u.email',
    [at, sessionId],
  );
  return session ? session.email : null;
}
