// Opens the database the configuration names (a PostgreSQL URL, or the embedded one) and migrates it.
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { entities } from './entities/index.js';
import { readdir } from 'node:fs/promises';
import { startEmbedded, type EmbeddedDatabase } from './embedded.js';
import type { Logger } from '../logger.js';

export interface Database {
  orm: MikroORM;
  kind: 'postgres' | 'embedded';
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string;
  /** embedded only; undefined = in memory */
  dataDir?: string;
  /** embedded only: a database already booting (started before the app's imports, to overlap them) */
  embedded?: Promise<EmbeddedDatabase>;
  poolMax: number;
  logger?: Logger;
}

export function ormOptions(extra: Partial<Options>, logger?: Logger): Options {
  return {
    logger: (message: string) => logger?.debug({ orm: message }),
    entities,
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

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const pool = { min: 0, max: opts.poolMax, idleTimeoutMillis: 30_000 };
  if (opts.databaseUrl) {
    const orm = await MikroORM.init(ormOptions({ clientUrl: opts.databaseUrl, pool }, opts.logger));
    return { orm, kind: 'postgres', close: () => orm.close(true) };
  }
  const embedded = await (opts.embedded ?? startEmbedded({ dataDir: opts.dataDir, maxConnections: opts.poolMax + 2 }));
  try {
    const orm = await MikroORM.init(ormOptions({ ...embedded.connection, pool }, opts.logger));
    return {
      orm,
      kind: 'embedded',
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

/**
 * Applies pending migrations. The migrator (and the migration classes) load only when something is
 * pending: on an up-to-date database a start costs one query instead of ~0.3 s of imports.
 */
export async function migrate(orm: MikroORM, logger?: Logger): Promise<string[]> {
  const em = orm.em.fork();
  const [{ exists }] = await em.execute(`select to_regclass('mikro_orm_migrations') is not null as exists`);
  const done = new Set<string>(
    exists ? (await em.execute<{ name: string }[]>('select name from mikro_orm_migrations')).map((r) => r.name) : [],
  );
  if ((await shippedMigrations()).every((name) => done.has(name))) return [];
  const [{ Migrator }, { migrationsList }] = await Promise.all([
    import('@mikro-orm/migrations'),
    import('../../migrations/index.js'),
  ]);
  orm.config.set('migrations', { ...orm.config.get('migrations'), migrationsList });
  Migrator.register(orm);
  const applied = await orm.getMigrator().up();
  if (applied.length) logger?.info({ migrations: applied.map((m) => m.name) }, 'migrations applied');
  return applied.map((m) => m.name);
}
