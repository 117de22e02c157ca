// Turns a request's bearer key or session cookie into a Caller. No cache: revocation, expiry and
// deactivation take effect on the very next request, on every instance.
import { hashApiKey, isWellFormedApiKey } from '../domain/api-key.js';
import { ok, refuse, type Refusal, type Result } from '../domain/errors.js';
import type { Caller, Deps } from '../application/context.js';
import { verifySessionToken } from './session-token.js';
import { userGrantsSql } from '../persistence/role-graph.js';

const GRANTS_SQL = userGrantsSql('u.id');

const KEY_SQL = `
  select k.id, k.name, k.user_id, k.last_used_at, k.permissions, u.type, u.name as user_name, ${GRANTS_SQL} as grants
  from api_keys k join users u on u.id = k.user_id
  where k.key_hash = ? and k.revoked_at is null and (k.expires_at is null or k.expires_at > ?)
    and u.status = 'active'`;

const SESSION_SQL = `
  select s.id, u.id as user_id, u.name as user_name, ${GRANTS_SQL} as grants
  from sessions s join users u on u.id = s.user_id
  where s.id = ? and s.user_id = ? and s.revoked_at is null and s.expires_at > now()
    and u.status = 'active' and u.type = 'human'`;

export const UNAUTHENTICATED = (detail = 'A valid API key or session is required.'): Refusal =>
  refuse('unauthenticated', detail);

const LAST_USED_RESOLUTION_MS = 60_000;

/** The key's caller, or `unauthenticated`: a result like every use case's. */
export async function authenticateApiKey(deps: Deps, key: string): Promise<Result<Caller>> {
  if (!isWellFormedApiKey(key)) return UNAUTHENTICATED('The API key is malformed.');
  const em = deps.orm.em.fork();
  // Expiry against the service's clock: the one that computed an expiry or the end of a rotation's overlap.
  const now = deps.clock();
  const [row] = await em.execute<
    {
      id: string;
      name: string;
      user_id: string;
      user_name: string;
      type: 'human' | 'agent';
      grants: string[] | null;
      permissions: string[] | null;
      last_used_at: string | Date | null;
    }[]
  >(KEY_SQL, [hashApiKey(key), now]);
  if (!row) return UNAUTHENTICATED('The API key is unknown, expired or revoked.');
  const lastUsed = row.last_used_at ? new Date(row.last_used_at) : null;
  if (!lastUsed || now.getTime() - lastUsed.getTime() >= LAST_USED_RESOLUTION_MS) {
    // Off the critical path; the guard in SQL keeps it to one write a minute across instances.
    void em
      .execute(
        `update api_keys set last_used_at = ? where id = ? and (last_used_at is null or last_used_at <= ?)`,
        [now, row.id, new Date(now.getTime() - LAST_USED_RESOLUTION_MS)],
      )
      .catch((err: unknown) => deps.logger.warn({ err }, 'could not record api key use'));
  }
  return ok({
    kind: row.type,
    userId: row.user_id,
    userName: row.user_name,
    userGrants: row.grants ?? [],
    keyPermissions: row.permissions,
    authenticatedBy: 'api_key',
    apiKey: { id: row.id, name: row.name },
    sessionId: null,
  });
}

export async function authenticateSession(deps: Deps, token: string): Promise<Caller | null> {
  const claims = verifySessionToken(deps.sessionSecret, token);
  if (!claims) return null;
  const em = deps.orm.em.fork();
  // The user-type filter in SQL refuses agents even when the token's signature is valid.
  const [row] = await em.execute<{ id: string; user_id: string; user_name: string; grants: string[] | null }[]>(SESSION_SQL, [claims.sessionId, claims.userId]);
  if (!row) return null;
  return {
    kind: 'human',
    userId: row.user_id,
    userName: row.user_name,
    userGrants: row.grants ?? [],
    keyPermissions: null,
    authenticatedBy: 'session',
    apiKey: null,
    sessionId: row.id,
  };
}

/** Reads `Authorization: Bearer …`; returns undefined when the header is absent. */
export function bearerToken(header: string | undefined): string | undefined | null {
  if (header === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : null;
}
