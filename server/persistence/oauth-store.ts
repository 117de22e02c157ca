// The OAuth authorization server's rows (SPEC §13): oidc-provider's storage, the token check /mcp runs on
// every request, and the grants a person sees as connected apps.
import type { EntityManager } from '@mikro-orm/postgresql';
import { userGrantsSql } from './role-graph.js';
import { prepared } from './statements.js';

export interface StoredRow {
  payload: Record<string, unknown>;
  consumed_at: Date | string | null;
}

export interface UpsertRow {
  kind: string;
  id: string;
  payload: Record<string, unknown>;
  grantId: string | null;
  userId: string | null;
  uid: string | null;
  expiresAt: Date | null;
}

export async function upsertOAuthRow(em: EntityManager, r: UpsertRow): Promise<void> {
  await em.execute(
    `insert into oauth_store (kind, id, payload, grant_id, user_id, uid, expires_at)
     values (?, ?, ?::jsonb, ?, ?, ?, ?)
     on conflict (kind, id) do update set payload = excluded.payload, grant_id = excluded.grant_id,
       user_id = excluded.user_id, uid = excluded.uid, expires_at = excluded.expires_at`,
    [r.kind, r.id, JSON.stringify(r.payload), r.grantId, r.userId, r.uid, r.expiresAt],
  );
}

const LIVE = '(expires_at is null or expires_at > now())';

export async function findOAuthRow(em: EntityManager, kind: string, id: string): Promise<StoredRow | null> {
  const [row] = await em.execute<StoredRow[]>(`select payload, consumed_at from oauth_store where kind = ? and id = ? and ${LIVE}`, [kind, id]);
  return row ?? null;
}

export async function findOAuthRowByUid(em: EntityManager, kind: string, uid: string): Promise<StoredRow | null> {
  const [row] = await em.execute<StoredRow[]>(`select payload, consumed_at from oauth_store where kind = ? and uid = ? and ${LIVE}`, [kind, uid]);
  return row ?? null;
}

export async function consumeOAuthRow(em: EntityManager, kind: string, id: string, at: Date): Promise<void> {
  await em.execute('update oauth_store set consumed_at = coalesce(consumed_at, ?) where kind = ? and id = ?', [at, kind, id]);
}

export async function destroyOAuthRow(em: EntityManager, kind: string, id: string): Promise<void> {
  await em.execute('delete from oauth_store where kind = ? and id = ?', [kind, id]);
}

/** Everything issued under a grant (codes, tokens), and the grant itself. */
export async function revokeOAuthGrant(em: EntityManager, grantId: string): Promise<number> {
  const rows = await em.execute<{ kind: string }[]>(`delete from oauth_store where grant_id = ? or (kind = 'Grant' and id = ?) returning kind`, [
    grantId,
    grantId,
  ]);
  return rows.filter((r) => r.kind === 'Grant').length;
}

/** What the consent recorded about the client, kept beside the grant (a metadata-document client is not stored). */
export async function describeGrantClient(em: EntityManager, grantId: string, name: string, verified: boolean): Promise<void> {
  await em.execute(`update oauth_store set client_name = ?, client_verified = ? where kind = 'Grant' and id = ?`, [name, verified, grantId]);
}

export interface TokenHolder {
  grant_id: string;
  aud: unknown;
  client_id: string;
  client_name: string | null;
  resources: Record<string, string> | null;
  user_id: string;
  user_name: string;
  grants: string[] | null;
  last_used_at: Date | string | null;
}

// One read per request, as a key's: the token (hashed), its grant, and its person, who must still be an
// active human. A revoked grant has no row, so its tokens stop on the next request on every instance.
const tokenHolderSql = `select g.id as grant_id, t.payload->'aud' as aud, g.payload->>'clientId' as client_id,
    g.client_name, g.payload->'resources' as resources, u.id as user_id, u.name as user_name,
    ${userGrantsSql('u.id')} as grants, g.last_used_at
  from oauth_store t
  join oauth_store g on g.kind = 'Grant' and g.id = t.grant_id and (g.expires_at is null or g.expires_at > ?)
  join users u on u.id = g.user_id
  where t.kind = 'AccessToken' and t.id = ? and t.expires_at > ? and t.consumed_at is null
    and u.status = 'active' and u.type = 'human'`;

export async function tokenHolder(em: EntityManager, tokenHash: string, now: Date): Promise<TokenHolder | null> {
  const [row] = await prepared<TokenHolder>(em, tokenHolderSql, [now, tokenHash, now]);
  return row ?? null;
}

export async function recordGrantUse(em: EntityManager, grantId: string, now: Date, resolutionMs: number): Promise<void> {
  await prepared(em, `update oauth_store set last_used_at = ? where kind = 'Grant' and id = ? and (last_used_at is null or last_used_at <= ?)`, [
    now,
    grantId,
    new Date(now.getTime() - resolutionMs),
  ]);
}

export interface ConnectedAppRow {
  id: string;
  client_id: string;
  client_name: string | null;
  client_verified: boolean | null;
  resources: Record<string, string> | null;
  created_at: Date | string;
  last_used_at: Date | string | null;
}

/** The person's live grants, newest first (a person has few: no paging beyond the cap). */
export async function connectedApps(em: EntityManager, userId: string, cap: number): Promise<ConnectedAppRow[]> {
  return em.execute<ConnectedAppRow[]>(
    `select id, payload->>'clientId' as client_id, client_name, client_verified, payload->'resources' as resources, created_at, last_used_at
     from oauth_store where kind = 'Grant' and user_id = ? and ${LIVE}
     order by created_at desc, id desc limit ?`,
    [userId, cap],
  );
}

export async function connectedApp(em: EntityManager, userId: string, grantId: string): Promise<ConnectedAppRow | null> {
  const [row] = await em.execute<ConnectedAppRow[]>(
    `select id, payload->>'clientId' as client_id, client_name, client_verified, payload->'resources' as resources, created_at, last_used_at
     from oauth_store where kind = 'Grant' and user_id = ? and id = ? and ${LIVE}`,
    [userId, grantId],
  );
  return row ?? null;
}

/** Expired rows (codes, tokens, interactions) go: housekeeping, not correctness (every read checks expiry). */
export async function deleteExpiredOAuthRows(em: EntityManager, now: Date): Promise<number> {
  const rows = await em.execute<{ kind: string }[]>('delete from oauth_store where expires_at <= ? returning kind', [now]);
  return rows.length;
}

/** The user `id` when it is an active human (the only kind of person who can hold a grant); null otherwise. */
export async function activeHuman(em: EntityManager, id: string): Promise<{ id: string; name: string } | null> {
  const [row] = await em.execute<{ id: string; name: string }[]>(`select id, name from users where id::text = ? and status = 'active' and type = 'human'`, [
    id,
  ]);
  return row ?? null;
}

/** Deactivation ends every grant of the person: reactivation brings no connected app back, as no key comes back. */
export async function revokeGrantsOf(tx: EntityManager, userId: string): Promise<void> {
  await tx.execute(
    `delete from oauth_store where grant_id in (select id from oauth_store where kind = 'Grant' and user_id = ?)
       or (user_id = ? and kind in ('Grant', 'Session'))`,
    [userId, userId],
  );
}
