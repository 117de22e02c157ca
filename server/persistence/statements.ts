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
  let query = knex.raw(sql, params as Knex.RawBinding[]).options({ name: statementName(sql) });
  const trx = em.getTransactionContext<Knex.Transaction>();
  if (trx) query = query.transacting(trx);
  const result = (await query) as RawResult<T>;
  return result.rows;
}
