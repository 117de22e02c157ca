// The credentials behind open streams, looked up together (SPEC §10: streams follow the caller's rights):
// one statement answers for every key and session an instance streams to, whatever their number.
import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray, userGrantsSql } from './role-graph.js';
import { prepared } from './statements.js';

export interface LiveCredential {
  kind: 'k' | 's';
  id: string;
  /** the user's effective grants now */
  grants: string[] | null;
  /** the key's own narrowing (null: all of the user's; always null for a session) */
  permissions: string[] | null;
}

/**
 * The keys (`keyIds`) and sessions (`sessions`, with their users) that still authenticate, with the user's
 * grants now: the same conditions as a request's lookup (`keyHolderSql`, `sessionHolder`). A credential
 * absent from the answer no longer authenticates (revoked, expired, its user deactivated or gone).
 * `now`: the service's clock, for keys' expiry as a request's lookup compares it.
 */
export async function liveCredentials(
  em: EntityManager,
  keyIds: readonly string[],
  sessions: readonly { id: string; userId: string }[],
  now: Date,
): Promise<LiveCredential[]> {
  return prepared<LiveCredential>(
    em,
    `select 'k' as kind, k.id, k.permissions, ${userGrantsSql('u.id')} as grants
       from api_keys k join users u on u.id = k.user_id
      where k.id = any(?::uuid[]) and k.revoked_at is null and (k.expires_at is null or k.expires_at > ?)
        and u.status = 'active'
     union all
     select 's' as kind, s.id, null::text[] as permissions, ${userGrantsSql('u.id')} as grants
       from sessions s join users u on u.id = s.user_id
       join unnest(?::uuid[], ?::uuid[]) as wanted(id, user_id) on wanted.id = s.id and wanted.user_id = s.user_id
      where s.revoked_at is null and s.expires_at > now() and u.status = 'active' and u.type = 'human'`,
    [pgArray(keyIds), now, pgArray(sessions.map((s) => s.id)), pgArray(sessions.map((s) => s.userId))],
  );
}
