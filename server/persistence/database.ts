// Opens the database the configuration names (a PostgreSQL URL, or the embedded one) and migrates it.
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities/index.js';
import { migrationsList } from '../../migrations/index.js';
import { startEmbedded } from './embedded.js';
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
  poolMax: number;
  logger?: Logger;
}

export function ormOptions(extra: Partial<Options>, logger?: Logger): Options {
  return {
    logger: (message: string) => logger?.debug({ orm: message }),
    entities,
    extensions: [Migrator],
    migrations: {
      migrationsList,
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
  const embedded = await startEmbedded({ dataDir: opts.dataDir, maxConnections: opts.poolMax + 2 });
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

export async function migrate(orm: MikroORM, logger?: Logger): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  if (applied.length) logger?.info({ migrations: applied.map((m) => m.name) }, 'migrations applied');
  return applied.map((m) => m.name);
}
