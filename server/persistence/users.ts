// User rows (SPEC §2 User): the SQL behind the user use cases, sign-in, password changes and key owners.
import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from './role-graph.js';
import { likePattern } from './transaction.js';

export interface UserRow {
  id: string;
  type: 'human' | 'agent';
  email: string;
  name: string;
  status: 'active' | 'deactivated';
  linked_actor_id: string | null;
  actor_name: string | null;
  actor_type: string | null;
  version: number;
  created_at: Date | string;
  updated_at: Date | string;
}

const USER_SELECT = `
  select u.id, u.type, u.email, u.name, u.status, u.linked_actor_id, a.name as actor_name, a.type as actor_type,
    u.version, u.created_at, u.updated_at
  from users u left join actors a on a.id = u.linked_actor_id`;

/** The read rows of the given users (unknown ids are simply absent). */
export async function userRowsById(em: EntityManager, ids: readonly string[]): Promise<UserRow[]> {
  return em.execute<UserRow[]>(`${USER_SELECT} where u.id = any(?::uuid[])`, [pgArray(ids)]);
}

/** The status of each of the given users, in one statement (unknown ids are absent). */
export async function userStatusesById(em: EntityManager, ids: readonly string[]): Promise<Map<string, UserRow['status']>> {
  if (ids.length === 0) return new Map();
  const rows = await em.execute<{ id: string; status: UserRow['status'] }[]>('select id, status from users where id = any(?::uuid[])', [pgArray(ids)]);
  return new Map(rows.map((r) => [r.id, r.status]));
}

export interface UserFilter {
  type?: 'human' | 'agent';
  status?: 'active' | 'deactivated';
  /** matched in the name or the email, wildcards literal */
  q?: string;
  /** the `(created_at, id)` of the last row of the previous page */
  after?: readonly [string, string];
}

function userFilterSql(filter: UserFilter): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.type) {
    where.push('u.type = ?');
    params.push(filter.type);
  }
  if (filter.status) {
    where.push('u.status = ?');
    params.push(filter.status);
  }
  if (filter.q) {
    const like = likePattern(filter.q);
    where.push('(u.name ilike ? or u.email ilike ?)');
    params.push(like, like);
  }
  if (filter.after) {
    where.push('(u.created_at, u.id) > (?::timestamptz, ?::uuid)');
    params.push(...filter.after);
  }
  return { where, params };
}

/** Up to `take` users matching `filter`, in `(created_at, id)` order. */
export async function listUserRows(em: EntityManager, filter: UserFilter, take: number): Promise<UserRow[]> {
  const { where, params } = userFilterSql(filter);
  return em.execute<UserRow[]>(`${USER_SELECT} ${where.length ? `where ${where.join(' and ')}` : ''} order by u.created_at, u.id limit ?`, [...params, take]);
}

/** Is `email` some user's (other than `exceptId`)? */
export async function emailTaken(em: EntityManager, email: string, exceptId?: string): Promise<boolean> {
  const [taken] =
    exceptId === undefined
      ? await em.execute('select 1 from users where email = ?', [email])
      : await em.execute('select 1 from users where email = ? and id <> ?', [email, exceptId]);
  return Boolean(taken);
}

export interface NewUser {
  id: string;
  type: 'human' | 'agent';
  email: string;
  name: string;
  passwordHash: string | null;
  linkedActorId: string | null;
  at: Date;
}

/** An active user, with no roles yet. */
export async function insertUser(tx: EntityManager, u: NewUser): Promise<void> {
  await tx.execute(
    `insert into users (id, type, email, name, password_hash, status, linked_actor_id, created_at, updated_at)
     values (?, ?, ?, ?, ?, 'active', ?, ?, ?)`,
    [u.id, u.type, u.email, u.name, u.passwordHash, u.linkedActorId, u.at, u.at],
  );
}

export async function addUserRoles(tx: EntityManager, userId: string, roleIds: readonly string[]): Promise<void> {
  for (const roleId of roleIds) await tx.execute('insert into user_roles (user_id, role_id) values (?, ?)', [userId, roleId]);
}

/**
 * The user's roles become exactly `roleIds`. A role kept keeps its assignment (and so its `source`: one the
 * single sign-on mapping gave stays the mapping's, SPEC §16); added ones are given by hand.
 */
export async function replaceUserRoles(tx: EntityManager, userId: string, roleIds: readonly string[]): Promise<void> {
  await tx.execute('delete from user_roles where user_id = ? and not (role_id = any(?::uuid[]))', [userId, pgArray(roleIds)]);
  const kept = new Set(await roleIdsOfUser(tx, userId));
  await addUserRoles(
    tx,
    userId,
    roleIds.filter((r) => !kept.has(r)),
  );
}

/** The ids of the roles assigned to the user directly. */
export async function roleIdsOfUser(em: EntityManager, userId: string): Promise<string[]> {
  const rows = await em.execute<{ role_id: string }[]>('select role_id from user_roles where user_id = ?', [userId]);
  return rows.map((r) => r.role_id);
}

/** Writes the profile and counts a change (version + 1). */
export async function updateUserProfile(
  tx: EntityManager,
  userId: string,
  p: { name: string; email: string; linkedActorId: string | null },
  at: Date,
): Promise<void> {
  await tx.execute('update users set name = ?, email = ?, linked_actor_id = ?, updated_at = ?, version = version + 1 where id = ?', [
    p.name,
    p.email,
    p.linkedActorId,
    at,
    userId,
  ]);
}

/** Counts a change to the user that is not in its row (its roles): version + 1. */
export async function touchUser(tx: EntityManager, userId: string, at: Date): Promise<void> {
  await tx.execute('update users set updated_at = ?, version = version + 1 where id = ?', [at, userId]);
}

/** The user's email and status, the row locked until the transaction ends; null when absent. */
export async function lockUserStatus(tx: EntityManager, userId: string): Promise<{ email: string; status: string } | null> {
  const [user] = await tx.execute<{ email: string; status: string }[]>('select email, status from users where id = ? for update', [userId]);
  return user ?? null;
}

/**
 * Locks the user row in share mode until the transaction ends, for a use case about to mint a credential (a
 * key or a session) for it, and answers whether it may: the user is active and, when `sessionId` is given, that
 * session (the caller's) is still live. Deactivation locks the row `for update` and a password change updates
 * it, so a credential minted here either commits first (and they revoke it) or waits for them and sees their
 * result: none outlives a deactivation to come back on reactivation (SPEC §5). Two statements on purpose: the
 * session is read after the lock is granted, with a snapshot that sees what the waited-for change committed.
 */
export async function shareCredentialOwner(
  tx: EntityManager,
  userId: string,
  sessionId?: string | null,
): Promise<{ type: 'human' | 'agent'; email: string } | null> {
  const [user] = await tx.execute<{ type: 'human' | 'agent'; status: string; email: string }[]>(
    'select type, status, email from users where id = ? for share',
    [userId],
  );
  if (!user || user.status !== 'active') return null;
  if (sessionId) {
    const [live] = await tx.execute('select 1 as live from sessions where id = ? and user_id = ? and revoked_at is null and expires_at > now()', [
      sessionId,
      userId,
    ]);
    if (!live) return null;
  }
  return { type: user.type, email: user.email };
}

/** An active user becomes deactivated (a deactivated one stays as it is). */
export async function markDeactivated(tx: EntityManager, userId: string, at: Date): Promise<void> {
  await tx.execute(`update users set status = 'deactivated', updated_at = ?, version = version + 1 where id = ? and status = 'active'`, [at, userId]);
}

/** A deactivated user becomes active; its email when it changed, null when it was active already. */
export async function markReactivated(tx: EntityManager, userId: string, at: Date): Promise<string | null> {
  const rows = await tx.execute<{ email: string }[]>(
    `update users set status = 'active', updated_at = ?, version = version + 1 where id = ? and status = 'deactivated' returning email`,
    [at, userId],
  );
  return rows.length ? rows[0].email : null;
}

export async function setPasswordHash(tx: EntityManager, userId: string, hash: string, at: Date): Promise<void> {
  await tx.execute('update users set password_hash = ?, updated_at = ?, version = version + 1 where id = ?', [hash, at, userId]);
}

export interface UserSummary {
  type: 'human' | 'agent';
  status: 'active' | 'deactivated';
  email: string;
}

/** What the checks before a change need to know of a user; null when absent. */
export async function userSummary(em: EntityManager, userId: string): Promise<UserSummary | null> {
  const [user] = await em.execute<UserSummary[]>('select type, status, email from users where id = ?', [userId]);
  return user ?? null;
}

export interface Credentials {
  id: string;
  type: 'human' | 'agent';
  status: 'active' | 'deactivated';
  email: string;
  passwordHash: string | null;
}

async function credentialsWhere(em: EntityManager, column: 'email' | 'id', value: string): Promise<Credentials | null> {
  const [row] = await em.execute<{ id: string; type: Credentials['type']; status: Credentials['status']; email: string; password_hash: string | null }[]>(
    `select id, type, status, email, password_hash from users where ${column} = ?`,
    [value],
  );
  return row ? { id: row.id, type: row.type, status: row.status, email: row.email, passwordHash: row.password_hash } : null;
}

/** The user signing in with `email` (as typed, lower-cased) and its password hash; null when none. */
export function credentialsByEmail(em: EntityManager, email: string): Promise<Credentials | null> {
  return credentialsWhere(em, 'email', email);
}

export function credentialsById(em: EntityManager, userId: string): Promise<Credentials | null> {
  return credentialsWhere(em, 'id', userId);
}

/** How many users match `filter`, counting at most `bound + 1` rows (a count with a LIMIT, never every row). */
export async function countUserRows(em: EntityManager, filter: Omit<UserFilter, 'after'>, bound: number): Promise<number> {
  const { where, params } = userFilterSql(filter);
  const [row] = await em.execute<{ n: number }[]>(
    `select count(*)::int as n from (select 1 from users u ${where.length ? `where ${where.join(' and ')}` : ''} limit ?) s`,
    [...params, bound + 1],
  );
  return row.n;
}
