// Statements of the hot path (the bearer key's lookup, a tension command's read and write, the feed's
// read) run as named prepared statements: each connection parses and plans one once, and PostgreSQL then
// keeps a generic plan, instead of planning the statement afresh on every request (issue 18: planning was
// half of a rescore's database CPU). `DB_PREPARED_STATEMENTS=false` sends them as every other statement goes
// (values inlined by the ORM, one simple-protocol message), for a pooler that cannot keep prepared
// statements (PgBouncer before 1.21 in transaction mode); see docs/operations.md. The embedded database
// always goes that way: its socket connections share one session, so the extended protocol's messages of
// two connections would interleave in it.
import { createHash } from 'node:crypto';
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { preparesStatements } from './database.js';

const names = new Map<string, string>();
const MAX_NAMES = 1_000;

/**
 * One name per statement text, so two texts never share a name on a connection. The texts are the
 * application's own (values are always parameters), so there are few; the map is bounded all the same.
 */
function statementName(sql: string): string {
  let name = names.get(sql);
  if (!name) {
    name = `market_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    if (names.size >= MAX_NAMES) names.clear();
    names.set(sql, name);
  }
  return name;
}

interface RawResult<T> {
  rows: T[];
}

/**
 * A prepared statement's result columns are fixed when it is first planned: name them (no `select *` or
 * top-level `returning *`), or a migration that adds a column under a running instance makes it fail
 * ("cached plan must not change result type"; test/int/foundation/prepared-statements.int.test.ts).
 *
 * Runs `sql` (`?` placeholders, values in `params`) with `em`'s transaction when it has one, as a named
 * prepared statement: values go to PostgreSQL as bound parameters. Through knex like every other
 * statement, so its query events (SQL spans) still fire. When preparing is off, it is `em.execute`.
 */
export async function prepared<T>(em: EntityManager, sql: string, params: readonly unknown[]): Promise<T[]> {
  if (!preparesStatements(em)) return em.execute<T[]>(sql, params as unknown[]);
  const knex = em.getConnection().getKnex();
  const trx = em.getTransactionContext<Knex.Transaction>();
  if (!trx && !params.some(Array.isArray)) return direct<T>(knex, sql, params);
  let query = knex.raw(sql, params as Knex.RawBinding[]).options({ name: statementName(sql) });
  if (trx) query = query.transacting(trx);
  const result = (await query) as RawResult<T>;
  return result.rows;
}

interface DriverConnection {
  query(config: { name?: string; text: string; values: readonly unknown[] }): Promise<RawResult<unknown>>;
  /** set by knex's pg dialect when the connection failed or ended: it must not be used again */
  __knex__disposed?: unknown;
}
interface TarnPool {
  numFree(): number;
  numPendingAcquires(): number;
  release(conn: DriverConnection): boolean;
  on(event: 'acquireRequest' | 'poolDestroyRequest', listener: () => void): void;
}
interface PoolClient {
  pool?: TarnPool;
  acquireConnection(): Promise<DriverConnection>;
  releaseConnection(conn: DriverConnection): Promise<unknown>;
  positionBindings(sql: string): string;
}

/** Each statement's text with pg's `$n` placeholders, as knex numbers them. */
const numberedTexts = new Map<string, string>();

/**
 * Outside a transaction, one statement on one pool connection, handed to the driver as it is: knex would
 * build a query object, re-number the placeholders and fire its query events on every call (a REST rescore
 * makes three such calls). The same pool (its acquire timeout, its
 * connections' limits), the same named statement, the same query events. Array values go the knex way,
 * which expands them.
 */
async function direct<T>(knex: Knex, sql: string, params: readonly unknown[]): Promise<T[]> {
  const client = knex.client as unknown as PoolClient;
  let text = numberedTexts.get(sql);
  if (text === undefined) {
    text = client.positionBindings(sql);
    if (numberedTexts.size >= MAX_NAMES) numberedTexts.clear();
    numberedTexts.set(sql, text);
  }
  return onPoolConnection<T>(knex, sql, { name: statementName(sql), text, values: params });
}

/**
 * Connections a finished statement kept for the next one instead of handing them back to the pool (issue
 * 37): an acquisition from the pool (tarn, behind knex) makes some twenty promises, a timer and three
 * events, and a REST rescore made three of them, a fifth of its CPU. The pool still counts a kept connection
 * as used, so its limit holds for both; a kept connection goes back to the pool when anyone else asks the
 * pool for one it does not have free (its `acquireRequest`, before the request waits), when a statement
 * finishes while someone waits for one, when it has been idle a second, and when the pool closes. Bounded:
 * never more than the pool's own `max`, since every kept connection is one the pool lent.
 */
class KeptConnections {
  private readonly idle: { conn: DriverConnection; since: number }[] = [];
  private closing = false;
  private sweep: NodeJS.Timeout | undefined;

  constructor(private readonly pool: TarnPool) {
    // A caller outside this keep asks the pool: if the pool has none free, hand one back before it waits.
    pool.on('acquireRequest', () => {
      if (this.idle.length > 0 && pool.numFree() === 0) this.handBack(this.idle.pop()!.conn);
    });
    pool.on('poolDestroyRequest', () => {
      this.closing = true;
      this.handBackAll();
    });
  }

  /** Connections kept and not running a statement (the pool counts them as used): for the pool metric. */
  get size(): number {
    return this.idle.length;
  }

  /** An idle kept connection, or undefined (then the caller acquires one from the pool). */
  take(): DriverConnection | undefined {
    for (let kept = this.idle.pop(); kept; kept = this.idle.pop()) {
      if (!kept.conn.__knex__disposed) return kept.conn;
      this.handBack(kept.conn); // the pool's validation destroys it
    }
    return undefined;
  }

  /** After a statement: kept for the next one, unless the pool is closing, the connection failed, or someone waits. */
  put(conn: DriverConnection): void {
    if (this.closing || conn.__knex__disposed || this.pool.numPendingAcquires() > 0) return this.handBack(conn);
    this.idle.push({ conn, since: Date.now() });
    if (!this.sweep) {
      this.sweep = setInterval(() => this.handBackIdle(), IDLE_KEEP_MS);
      this.sweep.unref();
    }
  }

  private handBackIdle(): void {
    const before = Date.now() - IDLE_KEEP_MS;
    // oldest first: `put` pushes and `take` pops, so the idle ones are at the bottom
    while (this.idle.length > 0 && this.idle[0].since <= before) this.handBack(this.idle.shift()!.conn);
    if (this.idle.length === 0) this.stopSweep();
  }

  private handBackAll(): void {
    while (this.idle.length > 0) this.handBack(this.idle.pop()!.conn);
    this.stopSweep();
  }

  private stopSweep(): void {
    clearInterval(this.sweep);
    this.sweep = undefined;
  }

  private handBack(conn: DriverConnection): void {
    this.pool.release(conn);
  }
}

/** A kept connection idle this long goes back to the pool (whose own idle timeout then applies). */
const IDLE_KEEP_MS = 1_000;

const keeps = new WeakMap<object, KeptConnections>();

/** How many of `pool`'s connections are kept idle between statements (the pool counts them as used). */
export function keptIdle(pool: object): number {
  return keeps.get(pool)?.size ?? 0;
}

/** The keep of a pool (one per pool: the ORM replaces its pool when the timeouts are applied). */
function keptConnections(pool: TarnPool): KeptConnections {
  let keep = keeps.get(pool);
  if (!keep) keeps.set(pool, (keep = new KeptConnections(pool)));
  return keep;
}

let directQueries = 0;

/**
 * Fires knex's own query events around the statement, so whatever listens to every statement (the SQL
 * spans of sqlTracing, the round-trip tests) still sees it.
 */
async function onPoolConnection<T>(knex: Knex, sql: string, config: { name?: string; text: string; values: readonly unknown[] }): Promise<T[]> {
  const client = knex.client as unknown as PoolClient;
  const keep = client.pool ? keptConnections(client.pool) : undefined;
  const conn = keep?.take() ?? (await client.acquireConnection());
  const event = { sql, bindings: config.values, __knexQueryUid: `direct-${++directQueries}` };
  try {
    knex.emit('query', event);
    const result = await conn.query(config);
    knex.emit('query-response', result, event);
    return result.rows as T[];
  } catch (err) {
    knex.emit('query-error', err, event);
    throw err;
  } finally {
    if (keep) keep.put(conn);
    else await client.releaseConnection(conn);
  }
}

/**
 * A statement without values (`select pg_notify(…)`, the feed's announcement after a command) on a pool
 * connection, straight to the driver like `direct` and on every database (it names no statement).
 */
export function withoutValues<T>(em: EntityManager, sql: string): Promise<T[]> {
  return onPoolConnection<T>(em.getConnection().getKnex(), sql, { text: sql, values: [] });
}
