// Rows of the second factor (SPEC §16): enrolments, recovery codes and the pending sign-in challenges.
import type { EntityManager } from '@mikro-orm/postgresql';
import { decryptTotpSecret } from '../auth/second-factor.js';

export interface MfaRow {
  user_id: string;
  secret_ciphertext: string;
  confirmed_at: Date | null;
  last_time_step: number | null;
  created_at: Date;
}

const asRow = (r: Record<string, unknown> | undefined): MfaRow | null =>
  r
    ? {
        user_id: r.user_id as string,
        secret_ciphertext: r.secret_ciphertext as string,
        confirmed_at: r.confirmed_at ? new Date(r.confirmed_at as string) : null,
        last_time_step: r.last_time_step === null ? null : Number(r.last_time_step),
        created_at: new Date(r.created_at as string),
      }
    : null;

export async function mfaOf(em: EntityManager, userId: string, opts: { lock?: boolean } = {}): Promise<MfaRow | null> {
  const [row] = await em.execute(`select * from user_mfa where user_id = ?${opts.lock ? ' for update' : ''}`, [userId]);
  return asRow(row);
}

/** Whether the user has a confirmed second factor. */
export async function hasConfirmedMfa(em: EntityManager, userId: string): Promise<boolean> {
  const [row] = await em.execute<{ yes: boolean }[]>('select exists (select 1 from user_mfa where user_id = ? and confirmed_at is not null) as yes', [userId]);
  return row.yes;
}

/** A new pending enrolment, replacing an earlier pending one (a confirmed one is never replaced here). */
export async function putPendingMfa(tx: EntityManager, userId: string, ciphertext: string, at: Date): Promise<boolean> {
  const rows = await tx.execute(
    `insert into user_mfa (user_id, secret_ciphertext, confirmed_at, last_time_step, created_at) values (?, ?, null, null, ?)
     on conflict (user_id) do update set secret_ciphertext = excluded.secret_ciphertext, created_at = excluded.created_at, last_time_step = null
       where user_mfa.confirmed_at is null
     returning user_id`,
    [userId, ciphertext, at],
  );
  return rows.length === 1;
}

export async function confirmMfa(tx: EntityManager, userId: string, at: Date, timeStep: number, codeHashes: { id: string; hash: string }[]): Promise<void> {
  await tx.execute('update user_mfa set confirmed_at = ?, last_time_step = ? where user_id = ?', [at, timeStep, userId]);
  await tx.execute('delete from user_recovery_codes where user_id = ?', [userId]);
  for (const c of codeHashes) await tx.execute('insert into user_recovery_codes (id, user_id, code_hash) values (?, ?, ?)', [c.id, userId, c.hash]);
}

/** Takes TOTP step `timeStep` if it is newer than every accepted one; false when it was used (a replay). */
export async function takeTimeStep(tx: EntityManager, userId: string, timeStep: number): Promise<boolean> {
  const rows = await tx.execute(
    'update user_mfa set last_time_step = ? where user_id = ? and (last_time_step is null or last_time_step < ?) returning user_id',
    [timeStep, userId, timeStep],
  );
  return rows.length === 1;
}

export async function unusedRecoveryCodes(em: EntityManager, userId: string): Promise<{ id: string; code_hash: string }[]> {
  return em.execute('select id, code_hash from user_recovery_codes where user_id = ? and used_at is null', [userId]);
}

/** Marks a recovery code used; false when a concurrent sign-in used it first. */
export async function useRecoveryCode(tx: EntityManager, id: string, at: Date): Promise<boolean> {
  const rows = await tx.execute('update user_recovery_codes set used_at = ? where id = ? and used_at is null returning id', [at, id]);
  return rows.length === 1;
}

export async function countUnusedRecoveryCodes(em: EntityManager, userId: string): Promise<number> {
  const [row] = await em.execute<{ n: number }[]>('select count(*)::int as n from user_recovery_codes where user_id = ? and used_at is null', [userId]);
  return row.n;
}

/** Removes the user's enrolment (pending or confirmed) and its recovery codes; whether a confirmed one was removed. */
export async function deleteMfa(tx: EntityManager, userId: string): Promise<boolean> {
  const rows = await tx.execute<{ confirmed: boolean }[]>('delete from user_mfa where user_id = ? returning confirmed_at is not null as confirmed', [userId]);
  await tx.execute('delete from mfa_challenges where user_id = ?', [userId]);
  return rows.some((r) => r.confirmed);
}

export interface ChallengeRow {
  id: string;
  user_id: string;
  email: string;
  expires_at: Date;
  failures: number;
  used_at: Date | null;
}

export async function insertChallenge(
  tx: EntityManager,
  c: { id: string; tokenHash: string; userId: string; email: string; at: Date; expiresAt: Date },
): Promise<void> {
  // Expired challenges count for nothing: dropped as new ones come.
  await tx.execute('delete from mfa_challenges where expires_at <= ?', [c.at]);
  await tx.execute('insert into mfa_challenges (id, token_hash, user_id, email, created_at, expires_at) values (?, ?, ?, ?, ?, ?)', [
    c.id,
    c.tokenHash,
    c.userId,
    c.email,
    c.at,
    c.expiresAt,
  ]);
}

export async function challengeByHash(em: EntityManager, tokenHash: string, opts: { lock?: boolean } = {}): Promise<ChallengeRow | null> {
  const [row] = await em.execute<(Omit<ChallengeRow, 'expires_at' | 'used_at'> & { expires_at: string | Date; used_at: string | Date | null })[]>(
    `select id, user_id, email, expires_at, failures, used_at from mfa_challenges where token_hash = ?${opts.lock ? ' for update' : ''}`,
    [tokenHash],
  );
  return row ? { ...row, expires_at: new Date(row.expires_at), used_at: row.used_at ? new Date(row.used_at) : null } : null;
}

/** Spends the challenge; false when another request spent it first. */
export async function spendChallenge(tx: EntityManager, id: string, at: Date): Promise<boolean> {
  const rows = await tx.execute('update mfa_challenges set used_at = ? where id = ? and used_at is null returning id', [at, id]);
  return rows.length === 1;
}

export async function countChallengeFailure(em: EntityManager, id: string): Promise<number> {
  const [row] = await em.execute<{ failures: number }[]>('update mfa_challenges set failures = failures + 1 where id = ? returning failures', [id]);
  return row?.failures ?? 0;
}

/** How many stored second factors do not decrypt with `serverSecret` (e.g. after an import from another server). */
export async function unreadableEnrolments(em: EntityManager, serverSecret: string | null): Promise<number> {
  const rows = await em.execute<{ user_id: string; secret_ciphertext: string }[]>('select user_id, secret_ciphertext from user_mfa');
  if (!serverSecret) return rows.length;
  return rows.filter((r) => decryptTotpSecret(serverSecret, r.user_id, r.secret_ciphertext) === null).length;
}
