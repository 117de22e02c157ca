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
}
interface PoolClient {
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

let directQueries = 0;

/**
 * Fires knex's own query events around the statement, so whatever listens to every statement (the SQL
 * spans of sqlTracing, the round-trip tests) still sees it.
 */
async function onPoolConnection<T>(knex: Knex, sql: string, config: { name?: string; text: string; values: readonly unknown[] }): Promise<T[]> {
  const client = knex.client as unknown as PoolClient;
  const conn = await client.acquireConnection();
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
    await client.releaseConnection(conn);
  }
}

/**
 * A statement without values (`select pg_notify(…)`, the feed's announcement after a command) on a pool
 * connection, straight to the driver like `direct` and on every database (it names no statement).
 */
export function withoutValues<T>(em: EntityManager, sql: string): Promise<T[]> {
  return onPoolConnection<T>(em.getConnection().getKnex(), sql, { text: sql, values: [] });
}
