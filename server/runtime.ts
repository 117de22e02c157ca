// Assembles the running service's dependencies: config → database (migrated) → deps.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import type { Deps } from './application/context.js';
import { applyTimeouts, migrate, openDatabase, type Database } from './persistence/database.js';
import type { EmbeddedDatabase } from './persistence/embedded.js';
import { createMetrics } from './metrics.js';
import { createFeed } from './application/events/feed-hub.js';
import { partyNameSyncer } from './persistence/tension-party-names.js';
import { RightsWatch } from './application/events/stream-guard.js';

/** SESSION_SECRET, or one generated once and kept (0600) in the data folder. */
export async function resolveSessionSecret(config: Config): Promise<string> {
  if (config.sessionSecret) return config.sessionSecret;
  const dir = resolve(config.dataDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'session-secret');
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing.length >= 32) return existing;
  } catch {
    // first start
  }
  const secret = randomBytes(48).toString('base64url');
  await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'w' });
  return secret;
}

/** SESSION_SECRET, or the one kept in the data folder, or null: for a process that must create nothing (the MCP stdio server). */
export async function existingSessionSecret(config: Config): Promise<string | null> {
  if (config.sessionSecret) return config.sessionSecret;
  try {
    const kept = (await readFile(join(resolve(config.dataDir), 'session-secret'), 'utf8')).trim();
    return kept.length >= 32 ? kept : null;
  } catch {
    return null;
  }
}

/** Opens the configured database and migrates it, unless `migrate` is false (MIGRATE_ON_START=false). */
export async function openServiceDatabase(
  config: Config,
  logger: Logger,
  embedded?: Promise<EmbeddedDatabase>,
  opts: { migrate?: boolean; timeouts?: boolean; create?: boolean } = {},
): Promise<Database> {
  const db = await openDatabase({
    create: opts.create,
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : resolve(config.dataDir),
    poolMax: config.dbPoolMax,
    acquireTimeoutMs: config.dbAcquireTimeoutMs,
    preparedStatements: config.dbPreparedStatements,
    logger,
    embedded,
  });
  try {
    // Migrations run without the limits: one may rewrite a large table, or wait for a running instance's locks.
    if (opts.migrate ?? true) await migrate(db.orm, logger);
    if (opts.timeouts) {
      await applyTimeouts(
        db,
        config.dbPoolMax,
        {
          statementMs: config.dbStatementTimeoutMs,
          lockMs: config.dbLockTimeoutMs,
          // a transaction left open by a stuck client holds its row locks; end it well after any statement could
          // (with the statement limit unset, the role's or database's idle limit stands, else the default's)
          idleInTransactionMs:
            config.dbStatementTimeoutMs === undefined ? undefined : config.dbStatementTimeoutMs ? Math.max(60_000, config.dbStatementTimeoutMs * 2) : 0,
        },
        config.dbAcquireTimeoutMs,
      );
    }
    return db;
  } catch (err) {
    await db.close();
    throw err;
  }
}

export function makeDeps(config: Config, logger: Logger, db: Database, sessionSecret: string): Deps {
  return withInstanceParts(db, {
    orm: db.orm,
    config,
    logger,
    clock: () => new Date(),
    newId: randomUUID,
    sessionSecret,
    metrics: createMetrics(db.orm),
    keyUses: new Map(),
    searchMemory: new Map(),
  });
}

/**
 * Adds the parts one instance holds for one database (its feed, its open streams' guards, the database's
 * traits) to the plain dependencies: made here, once, and shared by every request through `Deps`.
 */
export function withInstanceParts(db: Pick<Database, 'traits'>, base: Omit<Deps, 'database' | 'feed' | 'streamGuards' | 'statements' | 'partyNames'>): Deps {
  return {
    ...base,
    database: db.traits,
    feed: createFeed(base),
    streamGuards: new RightsWatch(base),
    statements: base.orm.em.fork(),
    partyNames: partyNameSyncer(base.orm, base.logger),
  };
}
