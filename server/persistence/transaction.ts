// The one way the application opens the database: `transact` for a unit of work (a returned refusal rolls
// everything back and is returned), `reader` for reads outside a transaction. Inside `transact`, use ONLY
// the `tx` it hands you: PGlite serialises everything, so a second connection inside would wait for ever.
// `withinTransaction` wraps a whole request in one transaction (idempotent retries keep their answer in
// the same commit as the write): inside it, `reader` and `transact` join that transaction.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Refusal, Result } from '../domain/errors.js';

export type Tx = EntityManager;

class Rollback extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.code);
  }
}

/** The request-wide transaction `withinTransaction` opened, while it is open. */
interface Ambient {
  orm: MikroORM;
  tx: EntityManager;
  open: boolean;
  afterCommit: (() => void)[];
}

const ambient = new AsyncLocalStorage<Ambient>();

function openAmbient(orm: MikroORM): Ambient | undefined {
  const a = ambient.getStore();
  return a && a.open && a.orm === orm ? a : undefined;
}

/** A fresh EntityManager for reads that need no transaction; inside `withinTransaction`, its transaction. */
export function reader(orm: MikroORM): EntityManager {
  return openAmbient(orm)?.tx ?? orm.em.fork();
}

/**
 * `reader` for code that only runs statements (`prepared`, `execute`) and never loads, persists or
 * flushes an entity, nor opens a transaction on it: one EntityManager per instance, outside any transaction
 * as `reader`'s fork is (`Deps.statements`, made once per instance by `withInstanceParts`), without a fork per call (a fork builds a unit of work, an identity map and
 * loaders: 10–15 µs each in a micro-benchmark, two per REST rescore, issue 37). Inside `withinTransaction`, its transaction.
 */
export function statementReader(deps: { orm: MikroORM; statements: EntityManager }): EntityManager {
  return openAmbient(deps.orm)?.tx ?? deps.statements;
}

/**
 * How many times a unit of work runs when the store refuses it with serialization_failure (40001): an append
 * under a transaction id smaller than the one its stream's previous version was committed under, which the
 * feed would serve out of order (Migration20261129200000). A new transaction is given a new id, above every
 * commit it could read, so the next attempt passes unless yet another commit lands on the stream meanwhile.
 * The last refusal propagates: 503 `unavailable` with Retry-After (server/persistence/transient.ts).
 */
const ATTEMPTS = 3;

function isSerializationFailure(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '40001';
}

/**
 * Runs `work` in one transaction; a returned refusal rolls back and is returned, a thrown error rolls back
 * and propagates. Inside `withinTransaction` it is a savepoint of the request's transaction (and runs once:
 * only the outermost transaction can run again under a new id). `work` may run again (see ATTEMPTS).
 */
export async function transact<T>(orm: MikroORM, work: (tx: Tx) => Promise<Result<T>>): Promise<Result<T>> {
  for (let attempt = 1; ; attempt++) {
    const outermost = !openAmbient(orm);
    try {
      return await reader(orm).transactional(async (tx) => {
        const result = await work(tx);
        if (!result.ok) throw new Rollback(result);
        return result;
      });
    } catch (err) {
      if (err instanceof Rollback) return err.refusal;
      if (outermost && attempt < ATTEMPTS && isSerializationFailure(err)) continue;
      throw err;
    }
  }
}

/** What `withinTransaction`'s work decides: commit (with its value), or roll back (and still answer the value). */
export type Settled<T> = { commit: true; value: T } | { commit: false; value: T };

/**
 * Runs `work` and everything it calls (through `reader` and `transact`) in one transaction, committed
 * or rolled back as `work` decides. Effects registered with `afterCommit` run once it has committed,
 * outside it (never on a rollback). Work that throws rolls back and the error propagates; a COMMIT
 * that fails propagates too (then whether it committed is unknown to us). `work` may run again, in a
 * new transaction, when the store refuses it with serialization_failure (see ATTEMPTS).
 */
export async function withinTransaction<T>(orm: MikroORM, work: (tx: Tx) => Promise<Settled<T>>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withinTransactionOnce(orm, work);
    } catch (err) {
      if (attempt < ATTEMPTS && isSerializationFailure(err)) continue;
      throw err;
    }
  }
}

async function withinTransactionOnce<T>(orm: MikroORM, work: (tx: Tx) => Promise<Settled<T>>): Promise<T> {
  const em = orm.em.fork();
  const tx = em; // begin() binds the transaction to this fork
  const state: Ambient = { orm, tx, open: true, afterCommit: [] };
  await em.begin();
  let settled: Settled<T>;
  try {
    // Before anything gives the transaction an id: a command inside may append events, and an append
    // must come from a transaction that took the feed lock first (see takeFeedLock in event-store.ts).
    await tx.execute('select market_feed_lock()');
    settled = await ambient.run(state, () => work(tx));
  } catch (err) {
    state.open = false;
    await em.rollback().catch(() => undefined);
    throw err;
  }
  state.open = false;
  if (!settled.commit) {
    await em.rollback();
    return settled.value;
  }
  await em.commit();
  for (const effect of state.afterCommit) ambient.exit(effect);
  return settled.value;
}

/** Runs `effect` once the work in progress has committed: at once outside `withinTransaction`, after its commit inside. */
export function afterCommit(orm: MikroORM, effect: () => void): void {
  const a = openAmbient(orm);
  if (a) a.afterCommit.push(effect);
  else effect();
}

export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; name?: string } | null;
  return Boolean(e && (e.code === '23505' || e.name === 'UniqueConstraintViolationException'));
}

/** `%text%` for ILIKE, with the wildcards the user typed matched literally (backslash is the default escape). */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
