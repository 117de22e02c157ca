// What a tension command references (its actor, its lead), read inside the command's transaction with the
// lock that keeps the reference valid until commit.
import type { EntityManager } from '@mikro-orm/postgresql';

/** `key share`: the actor cannot be deleted under the command before its transaction commits. */
export async function shareActor(tx: EntityManager, actorId: string): Promise<{ id: string; name: string; type: string } | null> {
  const [actor] = await tx.execute<{ id: string; name: string; type: string }[]>('select id, name, type from actors where id = ? for key share', [actorId]);
  return actor ?? null;
}

/**
 * `share`: a deactivation (which locks and updates the row) either commits before this read, which then
 * sees it, or waits until the command's transaction commits; no assignment is decided on a status already changed.
 */
export async function shareUser(tx: EntityManager, userId: string): Promise<{ id: string; name: string; status: string } | null> {
  const [user] = await tx.execute<{ id: string; name: string; status: string }[]>('select id, name, status from users where id = ? for share', [userId]);
  return user ?? null;
}
