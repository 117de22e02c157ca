// Opens the database the configuration names (a PostgreSQL URL, or the embedded one) and migrates it.
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { readdir } from 'node:fs/promises';
import { startEmbedded, type EmbeddedDatabase } from './embedded.js';
import type { Logger } from '../logger.js';

export interface Database {
  orm: MikroORM;
  kind: 'postgres' | 'embedded';
  /** what the rest of the service may rely on about this database (held by `Deps.database`) */
  traits: DatabaseTraits;
  close(): Promise<void>;
}

export interface DatabaseTraits {
  kind: 'postgres' | 'embedded';
  /**
   * Whether the hot path's statements are kept prepared (statements.ts): on PostgreSQL unless
   * DB_PREPARED_STATEMENTS=false; never on the embedded database, whose socket connections share one session.
   */
  preparedStatements: boolean;
}

declare module '@mikro-orm/core' {
  interface MikroORMOptions {
    /**
     * The service's own option: `prepared` (statements.ts) holds only an EntityManager, so the choice travels
     * in the ORM's configuration, set once by `openDatabase`; undefined (an ORM opened elsewhere) = not prepared.
     */
    preparedStatements?: boolean;
  }
}

export interface DatabaseOptions {
  databaseUrl?: string;
  /** embedded only; undefined = in memory */
  dataDir?: string;
  /** embedded only: a database already booting (started before the app's imports, to overlap them) */
  embedded?: Promise<EmbeddedDatabase>;
  poolMax: number;
  /** how long a query waits for a pool connection before it fails (then 503 `unavailable`); default 5000 */
  acquireTimeoutMs?: number;
  logger?: Logger;
  /** per-connection limits, so one stuck statement or lock cannot stall every writer; 0 = none */
  timeouts?: DatabaseTimeouts;
  /** PostgreSQL: create the database when it does not exist (MikroORM's `ensureDatabase`); default true. The MCP stdio server never does. */
  create?: boolean;
  /** PostgreSQL: the hot path's statements are kept prepared per connection (statements.ts); default true */
  preparedStatements?: boolean;
}

/** Each in milliseconds, 0 = none; undefined = the default below unless the role, database or server sets one. */
export interface DatabaseTimeouts {
  statementMs: number | undefined;
  lockMs: number | undefined;
  idleInTransactionMs: number | undefined;
}

/** The limits a connection gets when neither the configuration nor PostgreSQL's own settings name one. */
const DEFAULT_TIMEOUTS = { statementMs: 30_000, lockMs: 10_000, idleInTransactionMs: 60_000 } as const;

const SETTINGS = { statementMs: 'statement_timeout', lockMs: 'lock_timeout', idleInTransactionMs: 'idle_in_transaction_session_timeout' } as const;

/**
 * What else a service connection's session gets where PostgreSQL's value is its built-in default: no JIT
 * compilation. A request's statements are bounded (a page, a walk's budget, a count's limit), and the
 * planner prices most of them far below `jit_above_cost`; those it prices above are a search read through
 * the trigram indexes, where compiling at each execution adds time and saves none (a million tensions, a
 * common word under `sort=state`: 546–615 ms without against 656–664 with, medians of 9). The CLI's long
 * commands (a rebuild) keep the server's setting.
 */
const SESSION_DEFAULTS = [['jit', 'off']] as const;

/**
 * One statement setting each limit on the connection's session: a configured one always; a default one only
 * where PostgreSQL's value is its built-in default (`pg_settings.source = 'default'`), so a limit set with
 * `alter role … set`, `alter database … set`, postgresql.conf or the connection's options stays in force;
 * SESSION_DEFAULTS likewise.
 */
function timeoutsStatement(t: DatabaseTimeouts): string {
  const rows = (Object.keys(SETTINGS) as (keyof DatabaseTimeouts)[]).map((k) => {
    const configured = t[k];
    if (configured !== undefined && !(Number.isSafeInteger(configured) && configured >= 0)) throw new Error(`${k} must be a whole number of ms`);
    return `('${SETTINGS[k]}', '${configured ?? DEFAULT_TIMEOUTS[k]}', ${configured !== undefined})`;
  });
  for (const [name, value] of SESSION_DEFAULTS) rows.push(`('${name}', '${value}', false)`);
  return `select set_config(v.name, v.value, false) from (values ${rows.join(', ')}) as v(name, value, forced)
    join pg_settings s on s.name = v.name where v.forced or s.source = 'default'`;
}

/** Each pooled connection starts with the limits set (`set_config(…, false)` lasts for the connection's session). */
export function poolWithTimeouts(pool: Record<string, unknown>, t: DatabaseTimeouts | undefined) {
  if (!t) return pool;
  const sql = timeoutsStatement(t);
  return {
    ...pool,
    afterCreate: (conn: { query(sql: string, cb: (err: Error | null) => void): void }, done: (err: Error | null, conn: unknown) => void) =>
      conn.query(sql, (err) => done(err, conn)),
  };
}

export function ormOptions(extra: Partial<Options>, logger?: Logger): Options {
  return {
    logger: (message: string) => logger?.debug({ orm: message }),
    // No entities: every query is SQL in persistence/ (the command path by design, identity for now), and
    // entities that no code used had drifted from the migrated schema. They come back, with a test that
    // MikroORM's schema comparator finds no difference, when identity moves to the unit of work.
    entities: [],
    migrations: {
      path: 'migrations',
      tableName: 'mikro_orm_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    ignoreUndefinedInQuery: true,
    debug: false,
    discovery: { warnWhenNoEntities: false },
    ...extra,
  };
}

/** SPEC §7: a request that waits more than 5 s for a connection is answered 503, never held for knex's 60 s. */
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 5_000;

const basePool = (max: number, acquireTimeoutMs = DEFAULT_ACQUIRE_TIMEOUT_MS) => ({
  min: 0,
  max,
  idleTimeoutMillis: 30_000,
  acquireTimeoutMillis: acquireTimeoutMs,
});

/**
 * From now on every new connection carries the limits: the pool is replaced, so no connection opened
 * before (by a migration, which must run without them) stays in use.
 */
export async function applyTimeouts(db: Database, poolMax: number, timeouts: DatabaseTimeouts, acquireTimeoutMs?: number): Promise<void> {
  db.orm.config.set('pool', poolWithTimeouts(basePool(poolMax, acquireTimeoutMs), timeouts));
  await db.orm.close(true);
  await db.orm.connect();
}

/**
 * Whether statements on separate connections run at the same time: on a PostgreSQL server, yes; on the
 * embedded database, which runs one statement at a time, no (overlapping work there only queues).
 */
export function runsConnectionsInParallel(traits: DatabaseTraits): boolean {
  return traits.kind === 'postgres';
}

/** Whether `prepared` (statements.ts) keeps statements prepared on the connections of this EntityManager's ORM. */
export function preparesStatements(em: { config: { get(key: 'preparedStatements'): boolean | undefined } }): boolean {
  return em.config.get('preparedStatements') ?? false;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const pool = poolWithTimeouts(basePool(opts.poolMax, opts.acquireTimeoutMs), opts.timeouts);
  if (opts.databaseUrl) {
    const traits: DatabaseTraits = { kind: 'postgres', preparedStatements: opts.preparedStatements ?? true };
    const orm = await MikroORM.init(
      ormOptions({ clientUrl: opts.databaseUrl, pool, ensureDatabase: opts.create ?? true, preparedStatements: traits.preparedStatements }, opts.logger),
    );
    return { orm, kind: 'postgres', traits, close: () => orm.close(true) };
  }
  const embedded = await (opts.embedded ?? startEmbedded({ dataDir: opts.dataDir, maxConnections: opts.poolMax + 2 }));
  try {
    const traits: DatabaseTraits = { kind: 'embedded', preparedStatements: false };
    const orm = await MikroORM.init(ormOptions({ ...embedded.connection, pool, preparedStatements: false }, opts.logger));
    return {
      orm,
      kind: 'embedded',
      traits,
      async close() {
        await orm.close(true);
        await embedded.close();
      },
    };
  } catch (err) {
    await embedded.close();
    throw err;
  }
}

const MIGRATIONS_DIR = new URL('../../migrations/', import.meta.url);

/** Names of the migrations shipped with this build (the files themselves, so no list to keep in step). */
async function shippedMigrations(): Promise<string[]> {
  const files = await readdir(MIGRATIONS_DIR);
  return files.filter((f) => /^Migration\w+\.(js|ts)$/.test(f) && !f.endsWith('.d.ts')).map((f) => f.replace(/\.(js|ts)$/, ''));
}

async function appliedMigrations(orm: MikroORM): Promise<Set<string>> {
  const em = orm.em.fork();
  const [{ exists }] = await em.execute(`select to_regclass('mikro_orm_migrations') is not null as exists`);
  if (!exists) return new Set();
  return new Set((await em.execute<{ name: string }[]>('select name from mikro_orm_migrations')).map((r) => r.name));
}

export interface MigrationStatus {
  applied: string[];
  pending: string[];
}

/** What this build ships against what the database has applied (read only: never migrates). */
export async function migrationStatus(orm: MikroORM): Promise<MigrationStatus> {
  const [shipped, done] = await Promise.all([shippedMigrations(), appliedMigrations(orm)]);
  shipped.sort();
  return { applied: shipped.filter((n) => done.has(n)), pending: shipped.filter((n) => !done.has(n)) };
}

/** One key for every instance of the service: `hashtext` is stable across PostgreSQL versions. */
const MIGRATION_LOCK = `hashtext('market-service:migrations')`;

/**
 * Holds a database-wide advisory lock for the duration of `work`, on a connection of its own. A session
 * lock rather than a transaction lock: MikroORM's migrator creates its bookkeeping table outside the
 * migration transaction, and that creation must be serialised too (two instances creating it at once
 * collide on `pg_type_typname_nsp_index`). A crashed holder's session ends, and its lock with it.
 */
async function withMigrationLock<T>(orm: MikroORM, work: () => Promise<T>): Promise<T> {
  const raw = rawConnections(orm);
  // Outside the pool, which may have a single connection (the migration itself needs one).
  const conn = await raw.acquire();
  try {
    await conn.query(`select pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      return await work();
    } finally {
      await conn.query(`select pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
  } finally {
    await raw.destroy(conn);
  }
}

/**
 * Applies pending migrations under the database-wide lock, so instances that start together migrate
 * once and all come up. The migrator (and the migration classes) load only when something is pending:
 * on an up-to-date database a start costs one query instead of ~0.3 s of imports.
 */
export async function migrate(orm: MikroORM, logger?: Logger): Promise<string[]> {
  if ((await migrationStatus(orm)).pending.length === 0) return [];
  return withMigrationLock(orm, async () => {
    // Another instance may have migrated while this one waited for the lock.
    if ((await migrationStatus(orm)).pending.length === 0) return [];
    const applied = await (await migrator(orm)).up();
    if (applied.length) logger?.info({ migrations: applied.map((m) => m.name) }, 'migrations applied');
    return applied.map((m) => m.name);
  });
}

/**
 * The migrator over the shipped list (migrations/index.ts), loaded on demand. Without the list MikroORM
 * falls back to importing files from `migrations/`, which the built server and the tests cannot do.
 */
export async function migrator(orm: MikroORM) {
  const [{ Migrator }, { migrationsList }] = await Promise.all([import('@mikro-orm/migrations'), import('../../migrations/index.js')]);
  orm.config.set('migrations', { ...orm.config.get('migrations'), migrationsList });
  Migrator.register(orm);
  return orm.getMigrator();
}

/** A driver connection outside the pool: for what must never hold (or wait for) a pool slot. */
export interface RawConnection {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', cb: (n: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', cb: (err?: Error) => void): void;
  removeAllListeners(): void;
}

/** knex's raw connections (untyped in its client), typed once here: the migration lock and LISTEN use them. */
export function rawConnections(orm: MikroORM): { acquire(): Promise<RawConnection>; destroy(c: RawConnection): Promise<void> } {
  const client = orm.em.getConnection().getKnex().client as {
    acquireRawConnection(): Promise<RawConnection>;
    destroyRawConnection(c: RawConnection): Promise<void>;
  };
  return { acquire: () => client.acquireRawConnection(), destroy: (c) => client.destroyRawConnection(c) };
}
