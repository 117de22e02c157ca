// The guards identity writes share (the transaction itself is persistence/transaction.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { coversAll } from '../../domain/permissions.js';
import { refuse, type Refusal } from '../../domain/errors.js';
import type { Caller } from '../context.js';
import { callerGrants } from '../authorize.js';
import { countHumanStarHolders, lockIdentityChanges } from '../../persistence/role-graph.js';

/** No escalation (SPEC §2): the caller must hold everything `grants` would hand out. */
export function escalationRefusal(caller: Caller, grants: Iterable<string>): Refusal | null {
  const missing = coversAll(callerGrants(caller), grants);
  if (missing.length === 0) return null;
  return refuse('escalation_denied', `You cannot hand out permissions you do not hold: ${missing.join(', ')}.`, {
    missingPermissions: missing,
  });
}

/**
 * Editing or deleting a role acts on everyone who holds it (SPEC §2): the caller must hold every effective
 * grant of the roles the change reaches (`grants`: the role's and its inheritors', before or after the change).
 */
export function roleEditRefusal(caller: Caller, grants: Iterable<string>): Refusal | null {
  const missing = coversAll(callerGrants(caller), grants);
  if (missing.length === 0) return null;
  return refuse(
    'escalation_denied',
    `You cannot edit or delete a role that carries permissions you do not hold (the change acts on everyone holding it, or a role inheriting it): ${missing.join(', ')}.`,
    { missingPermissions: missing },
  );
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
    return refuse('last_admin', 'This change would leave no active human user holding every permission (*).');
  }
  return null;
}
