// The one check every use case that acts on a user or its keys makes (SPEC §2 "No escalation"): the caller
// must hold every effective permission of the user it acts on, so no one can take over a stronger account.
import type { EntityManager } from '@mikro-orm/postgresql';
import { coversAll } from '../../domain/permissions.js';
import { refuse, type Refusal } from '../../domain/errors.js';
import { userGrants } from '../../persistence/role-graph.js';
import type { Caller } from '../context.js';
import { callerGrants } from '../authorize.js';

/**
 * null when `caller` may act on the user `targetId`; otherwise 403 `escalation_denied` naming what it lacks.
 * Writers call it inside their transaction after `lockIdentityChanges`, so the target's permissions
 * cannot grow between the check and the change. There is no shortcut for acting on oneself: a caller whose
 * grants are narrower than its user's (a narrowed key) must not act on its own user either.
 */
export async function mayActOnUser(em: EntityManager, caller: Caller, targetId: string): Promise<Refusal | null> {
  const missing = coversAll(callerGrants(caller), await userGrants(em, targetId));
  if (missing.length === 0) return null;
  return refuse('escalation_denied', `You cannot act on a user who holds permissions you do not hold: ${missing.join(', ')}.`, {
    missingPermissions: missing,
  });
}
