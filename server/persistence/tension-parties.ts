// The actor and the user a tension names, read for a view of its past: their types (which never change)
// and their names now (for an event that recorded none).
import type { EntityManager } from '@mikro-orm/postgresql';

export interface Party {
  id: string;
  name: string;
  type: string;
}

/** The actor and the user (either may be null), as they are now; a missing one is absent from the answer. */
export async function loadParties(em: EntityManager, actorId: string, userId: string | null): Promise<{ actor?: Party; user?: Party }> {
  const rows: (Party & { kind: 'actor' | 'user' })[] = await em.execute(
    `select 'actor' as kind, id, name, type from actors where id = ?
     union all select 'user' as kind, id, name, type from users where id = ?::uuid`,
    [actorId, userId],
  );
  const pick = (kind: 'actor' | 'user') => {
    const r = rows.find((x) => x.kind === kind);
    return r ? { id: r.id, name: r.name, type: r.type } : undefined;
  };
  return { actor: pick('actor'), user: pick('user') };
}
