// Turns a request's bearer key or session cookie into a Caller. No cache: revocation, expiry and
// deactivation take effect on the very next request, on every instance.
import { hashApiKey, isWellFormedApiKey } from '../domain/api-key.js';
import { ok, refuse, type Refusal, type Result } from '../domain/errors.js';
import type { Caller, Deps } from '../application/context.js';
import { verifySessionToken } from './session-token.js';
import { keyHolder, recordKeyUse } from '../persistence/api-keys.js';
import { sessionHolder } from '../persistence/sessions.js';
import { hasConfirmedMfa } from '../persistence/second-factor.js';
import { recordGrantUse, tokenHolder } from '../persistence/oauth-store.js';
import { statementReader } from '../persistence/transaction.js';

export const UNAUTHENTICATED = (detail = 'A valid API key or session is required.'): Refusal => refuse('unauthenticated', detail);

const LAST_USED_RESOLUTION_MS = 60_000;

/** The key's caller, or `unauthenticated`: a result like every use case's. */
export async function authenticateApiKey(deps: Deps, key: string): Promise<Result<Caller>> {
  if (!isWellFormedApiKey(key)) return UNAUTHENTICATED('The API key is malformed.');
  // statements only (the lookup, the use's record): no EntityManager of its own per request
  const em = statementReader(deps);
  // Expiry against the service's clock: the one that computed an expiry or the end of a rotation's overlap.
  const now = deps.clock();
  const row = await keyHolder(em, hashApiKey(key), now);
  if (!row) return UNAUTHENTICATED('The API key is unknown, expired or revoked.');
  const lastUsed = row.last_used_at ? new Date(row.last_used_at) : null;
  // Requests are counted in memory and added to the key's day where `last_used_at` is written, so a request
  // costs no write of its own; a count whose write did not happen (another instance wrote) waits for the next.
  const tally = deps.keyUses;
  const requests = (tally?.get(row.id) ?? 0) + 1;
  if (!lastUsed || now.getTime() - lastUsed.getTime() >= LAST_USED_RESOLUTION_MS) {
    tally?.delete(row.id);
    // Off the critical path; the guard in SQL keeps it to one write a minute across instances.
    void recordKeyUse(em, row.id, now, LAST_USED_RESOLUTION_MS, requests)
      .then((written) => {
        if (!written) tally?.set(row.id, (tally.get(row.id) ?? 0) + requests);
      })
      .catch((err: unknown) => deps.logger.warn({ err }, 'could not record api key use'));
  } else tally?.set(row.id, requests);
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
  const em = statementReader(deps);
  const row = await sessionHolder(em, claims.sessionId, claims.userId);
  if (!row) return null;
  const grants = row.grants ?? [];
  // SPEC §16: looked up only when the switch is on and the user holds `*`, so other sessions pay nothing.
  const mustEnrol = deps.config.requireMfaForAdmins && grants.includes('*') && !(await hasConfirmedMfa(em, row.user_id));
  return {
    kind: 'human',
    userId: row.user_id,
    userName: row.user_name,
    userGrants: grants,
    keyPermissions: null,
    authenticatedBy: 'session',
    apiKey: null,
    sessionId: row.id,
    ...(mustEnrol ? { mfaEnrolmentRequired: true } : {}),
  };
}

/** Reads `Authorization: Bearer …`; returns undefined when the header is absent. */
export function bearerToken(header: string | undefined): string | undefined | null {
  if (header === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : null;
}

/**
 * An OAuth access token's caller (SPEC §13): its person's grants narrowed by the grant's scopes, read on every
 * request like a key's, so revocation, deactivation and role changes apply at once. Only for `resource`:
 * a token bound to another audience is refused.
 */
export async function authenticateOAuthToken(deps: Deps, token: string, resource: string): Promise<Result<Caller>> {
  if (!/^[\w-]{20,128}$/.test(token)) return UNAUTHENTICATED('The access token is malformed.');
  const em = statementReader(deps);
  const now = deps.clock();
  const row = await tokenHolder(em, hashApiKey(token), now);
  const audiences = row ? (Array.isArray(row.aud) ? row.aud : [row.aud]) : [];
  if (!row || !audiences.includes(resource)) return UNAUTHENTICATED('The access token is unknown, expired or revoked.');
  const lastUsed = row.last_used_at ? new Date(row.last_used_at) : null;
  if (!lastUsed || now.getTime() - lastUsed.getTime() >= LAST_USED_RESOLUTION_MS) {
    void recordGrantUse(em, row.grant_id, now, LAST_USED_RESOLUTION_MS).catch((err: unknown) => deps.logger.warn({ err }, 'could not record oauth grant use'));
  }
  const scopes = (row.resources?.[resource] ?? '').split(' ').filter(Boolean);
  return ok({
    kind: 'human',
    userId: row.user_id,
    userName: row.user_name,
    userGrants: row.grants ?? [],
    keyPermissions: scopes,
    authenticatedBy: 'oauth',
    apiKey: null,
    sessionId: null,
    oauthGrant: { id: row.grant_id, clientId: row.client_id, clientName: row.client_name },
  });
}
