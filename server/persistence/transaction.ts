// The one way the application opens the database: `transact` for a unit of work (a returned refusal rolls
// everything back and is returned), `reader` for reads outside a transaction. Inside `transact`, use ONLY
// the `tx` it hands you: PGlite serialises everything, so a second connection inside would wait for ever.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Refusal, Result } from '../domain/errors.js';

export type Tx = EntityManager;

class Rollback extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.code);
  }
}

/** A fresh EntityManager for reads that need no transaction. */
export function reader(orm: MikroORM): EntityManager {
  return orm.em.fork();
}

/** Runs `work` in one transaction; a returned refusal rolls back and is returned, a thrown error rolls back and propagates. */
export async function transact<T>(orm: MikroORM, work: (tx: Tx) => Promise<Result<T>>): Promise<Result<T>> {
  try {
    return await reader(orm).transactional(async (tx) => {
      const result = await work(tx);
      if (!result.ok) throw new Rollback(result);
      return result;
    });
  } catch (err) {
    if (err instanceof Rollback) return err.refusal;
    throw err;
  }
}

export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; name?: string } | null;
  return Boolean(e && (e.code === '23505' || e.name === 'UniqueConstraintViolationException'));
}

/** `%text%` for ILIKE, with the wildcards the user typed matched literally (backslash is the default escape). */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
