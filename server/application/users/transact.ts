// Identity writes: one transaction whose refusal rolls everything back, and the guards they share.
import type { EntityManager } from '@mikro-orm/postgresql';
import { coversAll } from '../../domain/permissions.js';
import { refuse, type Refusal, type Result } from '../../domain/errors.js';
import type { Caller, Deps } from '../context.js';
import { countHumanStarHolders, lockIdentityChanges } from '../../persistence/role-graph.js';

class Rollback extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.code);
  }
}

/** Runs `work` in one transaction (ONLY `tx` inside); a returned refusal rolls back and is returned. */
export async function transact<T>(deps: Deps, work: (tx: EntityManager) => Promise<Result<T>>): Promise<Result<T>> {
  const em = deps.orm.em.fork() as EntityManager;
  try {
    return await em.transactional(async (tx) => {
      const result = await work(tx as EntityManager);
      if (!result.ok) throw new Rollback(result);
      return result;
    });
  } catch (err) {
    if (err instanceof Rollback) return err.refusal;
    throw err;
  }
}

/** No escalation (SPEC §2): the caller must hold everything `grants` would hand out. */
export function escalationRefusal(caller: Caller, grants: Iterable<string>): Refusal | null {
  const missing = coversAll(caller.grants, grants);
  if (missing.length === 0) return null;
  return refuse('escalation_denied', `You cannot hand out permissions you do not hold: ${missing.join(', ')}.`, {
    missingPermissions: missing,
  });
}

/**
 * Applies `change` under the identity lock and refuses (rolling back) when it leaves no active human holder
 * of `*` where there was one (SPEC §2: the last active human holder of `*` cannot lose it). Every change
 * that can take `*` away takes the lock before reading anything, so concurrent demotions count in turn.
 */
export async function guardLastAdmin(tx: EntityManager, change: () => Promise<void>): Promise<Refusal | null> {
  await lockIdentityChanges(tx);
  const before = await countHumanStarHolders(tx);
  await change();
  if (before > 0 && (await countHumanStarHolders(tx)) === 0) {
    return refuse('last_admin', 'This change would leave no active human user holding `*`.');
  }
  return null;
}

export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; name?: string } | null;
  return Boolean(e && (e.code === '23505' || e.name === 'UniqueConstraintViolationException'));
}
