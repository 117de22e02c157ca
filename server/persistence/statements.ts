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
export function prepared<T>(em: EntityManager, sql: string, params: readonly unknown[]): Promise<T[]> {
  // (not `async`, nor `direct`: a layer of promises less on each of the hot path's statements)
  if (!preparesStatements(em)) return em.execute<T[]>(sql, params as unknown[]);
  const knex = em.getConnection().getKnex();
  const trx = em.getTransactionContext<Knex.Transaction>();
  if (!trx && !params.some(Array.isArray)) return direct<T>(knex, sql, params);
  let query = knex.raw(sql, params as Knex.RawBinding[]).options({ name: statementName(sql) });
  if (trx) query = query.transacting(trx);
  return (query as unknown as Promise<RawResult<T>>).then((result) => result.rows);
}

interface DriverConnection {
  query(config: { name?: string; text: string; values: readonly unknown[] }): Promise<RawResult<unknown>>;
  /** set by knex's pg dialect when the connection failed or ended: it must not be used again */
  __knex__disposed?: unknown;
}
/** tarn's pool behind knex, as far as this file and the pool metric read it */
export interface TarnPool {
  readonly max: number;
  /** how long a caller waits for a connection (DB_ACQUIRE_TIMEOUT_MS) */
  readonly acquireTimeoutMillis: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
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
function direct<T>(knex: Knex, sql: string, params: readonly unknown[]): Promise<T[]> {
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
 * as used, so its limit holds for both; a kept connection goes back when anyone else asks the pool for one
 * it does not have free (its `acquireRequest`, before the request waits), when a statement finishes while
 * someone waits in the pool, after a second idle, when its session failed, and when the pool closes.
 *
 * When every connection is lent, a statement waits here for one of the keep's own (the pool's queue costs
 * what its acquisitions cost), in order, as long as `DB_ACQUIRE_TIMEOUT_MS` like a wait in the pool, and
 * only while the keep has a connection running a statement: otherwise it asks the pool. Callers waiting in
 * the pool come first: a statement that ends while one waits hands its connection back, and the keep asks
 * the pool for one in its place for the first statement waiting here. Bounded: never more connections than
 * the pool's own `max`, since every one the keep holds is one the pool lent.
 */
class KeptConnections {
  private readonly idle: { conn: DriverConnection; since: number }[] = [];
  private readonly waiting: Waiting[] = [];
  /** connections of the keep running a statement */
  private lent = 0;
  /** acquisitions the keep asked the pool for, for statements waiting here */
  private fetching = 0;
  private closing = false;
  private sweep: NodeJS.Timeout | undefined;
  private expiry: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: TarnPool,
    private readonly client: PoolClient,
  ) {
    // A caller outside this keep asks the pool: if the pool has none free, hand one back before it waits.
    pool.on('acquireRequest', () => {
      if (this.idle.length > 0 && pool.numFree() === 0) this.handBack(this.idle.pop()!.conn);
    });
    pool.on('poolDestroyRequest', () => {
      this.closing = true;
      while (this.idle.length > 0) this.handBack(this.idle.pop()!.conn);
      clearInterval(this.sweep);
      this.sweep = undefined;
    });
  }

  /** Connections kept and not running a statement (the pool counts them as used): for the pool metric. */
  get size(): number {
    return this.idle.length;
  }

  /** A connection for one statement: a kept one at once, else one of the keep's when it ends, else the pool's. */
  acquire(): DriverConnection | Promise<DriverConnection> {
    for (let kept = this.idle.pop(); kept; kept = this.idle.pop()) {
      if (!kept.conn.__knex__disposed) {
        this.lent++;
        return kept.conn;
      }
      this.handBack(kept.conn); // the pool's validation destroys it
    }
    const pool = this.pool;
    const poolCanLend = pool.numFree() > 0 || pool.numUsed() + pool.numPendingCreates() < pool.max;
    if (this.closing || this.lent === 0 || poolCanLend) return this.fromPool();
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject, until: Date.now() + pool.acquireTimeoutMillis });
      if (!this.expiry) this.expireAt(this.waiting[0].until);
    });
  }

  /** After a statement: to the first statement waiting here, kept for the next one, or back to the pool. */
  release(conn: DriverConnection): void {
    this.lent--;
    if (this.closing || conn.__knex__disposed || this.othersWaiting()) {
      this.handBack(conn);
      // the keep gave a connection up: one waiting here gets one from the pool in its place
      if (this.waiting.length > 0) {
        this.fetching++;
        this.client.acquireConnection().then(
          (c) => {
            this.fetching--;
            this.deliver(c);
          },
          (err: unknown) => {
            this.fetching--;
            this.waiting.shift()?.reject(err);
          },
        );
      }
      return;
    }
    this.deliver(conn);
  }

  private deliver(conn: DriverConnection): void {
    const next = this.waiting.shift();
    if (next) {
      this.lent++;
      return next.resolve(conn);
    }
    if (this.closing || this.othersWaiting()) return this.handBack(conn);
    this.idle.push({ conn, since: Date.now() });
    if (!this.sweep) {
      this.sweep = setInterval(() => this.handBackIdle(), IDLE_KEEP_MS);
      this.sweep.unref();
    }
  }

  /** Someone outside the keep waits in the pool (the keep's own acquisitions for its queue aside). */
  private othersWaiting(): boolean {
    return this.pool.numPendingAcquires() > this.fetching;
  }

  private async fromPool(): Promise<DriverConnection> {
    const conn = await this.client.acquireConnection();
    this.lent++;
    return conn;
  }

  /** One timer for the queue: at the first one's deadline, refuse every statement whose wait is over. */
  private expireAt(until: number): void {
    this.expiry = setTimeout(() => {
      this.expiry = undefined;
      const now = Date.now();
      while (this.waiting.length > 0 && this.waiting[0].until <= now) this.waiting.shift()!.reject(new ConnectionWaitTimeout(this.pool.acquireTimeoutMillis));
      if (this.waiting.length > 0) this.expireAt(this.waiting[0].until);
    }, until - Date.now());
    this.expiry.unref();
  }

  private handBackIdle(): void {
    const before = Date.now() - IDLE_KEEP_MS;
    // oldest first: `deliver` pushes and `acquire` pops, so the idle ones are at the bottom
    while (this.idle.length > 0 && this.idle[0].since <= before) this.handBack(this.idle.shift()!.conn);
    if (this.idle.length === 0) {
      clearInterval(this.sweep);
      this.sweep = undefined;
    }
  }

  private handBack(conn: DriverConnection): void {
    this.pool.release(conn);
  }
}

interface Waiting {
  resolve(conn: DriverConnection): void;
  reject(err: unknown): void;
  /** Date.now() past which it is refused */
  until: number;
}

/** A statement waited DB_ACQUIRE_TIMEOUT_MS for a connection: 503 like the pool's own timeout (transient.ts). */
class ConnectionWaitTimeout extends Error {
  constructor(ms: number) {
    super(`Timeout acquiring a connection: every pool connection was in use for ${ms} ms`);
    this.name = 'ConnectionWaitTimeout';
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
function keptConnections(client: PoolClient & { pool: TarnPool }): KeptConnections {
  let keep = keeps.get(client.pool);
  if (!keep) keeps.set(client.pool, (keep = new KeptConnections(client.pool, client)));
  return keep;
}

let directQueries = 0;

/**
 * Fires knex's own query events around the statement, so whatever listens to every statement (the SQL
 * spans of sqlTracing, the round-trip tests) still sees it.
 */
async function onPoolConnection<T>(knex: Knex, sql: string, config: { name?: string; text: string; values: readonly unknown[] }): Promise<T[]> {
  const client = knex.client as unknown as PoolClient;
  const keep = client.pool ? keptConnections(client as PoolClient & { pool: TarnPool }) : undefined;
  const got = keep ? keep.acquire() : client.acquireConnection();
  const conn = got instanceof Promise ? await got : got;
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
    if (keep) keep.release(conn);
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
