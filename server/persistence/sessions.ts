// Session rows (SPEC §6): created at sign-in, revoked by sign-out, password changes and deactivation.
import type { EntityManager } from '@mikro-orm/postgresql';
import { userGrantsSql } from './role-graph.js';
import { prepared } from './statements.js';

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

/** The live session `sessionId` of the active human `userId`, with the user's grants; null when none. */
export async function sessionHolder(
  em: EntityManager,
  sessionId: string,
  userId: string,
): Promise<{ id: string; user_id: string; user_name: string; grants: string[] | null } | null> {
  // The user-type filter refuses agents even when the token's signature is valid.
  const [row] = await prepared<{ id: string; user_id: string; user_name: string; grants: string[] | null }>(
    em,
    `select s.id, u.id as user_id, u.name as user_name, ${userGrantsSql('u.id')} as grants
     from sessions s join users u on u.id = s.user_id
     where s.id = ? and s.user_id = ? and s.revoked_at is null and s.expires_at > now()
       and u.status = 'active' and u.type = 'human'`,
    [sessionId, userId],
  );
  return row ?? null;
}
