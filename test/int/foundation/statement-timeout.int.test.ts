// Issue 29: the server's per-connection limits (DB_STATEMENT_TIMEOUT_MS, DB_LOCK_TIMEOUT_MS) when unset
// leave a limit set on the role, the database or the server in force, and otherwise default to 30 s / 10 s
// (and 60 s idle in a transaction); set, they win over everything, 0 included. Issue 37: no JIT compilation
// unless the role, the database or the server asks for it.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config.js';
import { createLogger } from '../../../server/logger.js';
import { openServiceDatabase } from '../../../server/runtime.js';
import type { Database } from '../../../server/persistence/database.js';
import { startEmbedded } from '../../../server/persistence/embedded.js';
import { emptyPostgresDatabase, onPostgres, queryOnce } from '../../support/database.js';

const logger = createLogger('silent');
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** The limits a service connection carries. */
async function limits(env: Record<string, string>, inMemory = false) {
  const config = loadConfig({ NODE_ENV: 'test', ...env });
  const embedded = inMemory ? startEmbedded({ maxConnections: config.dbPoolMax + 2 }) : undefined;
  const db: Database = await openServiceDatabase(config, logger, embedded, { migrate: false, timeouts: true });
  try {
    const [row] = await db.orm.em.fork().execute<{ statement: string; lock: string; idle: string; jit: string }[]>(
      `select current_setting('statement_timeout') as statement, current_setting('lock_timeout') as lock,
              current_setting('idle_in_transaction_session_timeout') as idle, current_setting('jit') as jit`,
    );
    return { ...row };
  } finally {
    await db.close();
  }
}

describe('database limits and the role’s settings', () => {
  it('unset in the environment means unset in the configuration (blank alike); the bounds hold', () => {
    expect(loadConfig({}).dbStatementTimeoutMs).toBeUndefined();
    expect(loadConfig({ DB_STATEMENT_TIMEOUT_MS: '', DB_LOCK_TIMEOUT_MS: '' })).toMatchObject({ dbStatementTimeoutMs: undefined, dbLockTimeoutMs: undefined });
    expect(loadConfig({ DB_STATEMENT_TIMEOUT_MS: '0', DB_LOCK_TIMEOUT_MS: '3600000' })).toMatchObject({ dbStatementTimeoutMs: 0, dbLockTimeoutMs: 3_600_000 });
    for (const bad of ['-1', '3600001', '1.5', 'soon']) expect(() => loadConfig({ DB_STATEMENT_TIMEOUT_MS: bad }), bad).toThrow(/DB_STATEMENT_TIMEOUT_MS/);
  });

  it.skipIf(!onPostgres)(
    'PostgreSQL: a limit set on the database or the role stays in force while the variables are unset; set, they win; nothing set anywhere gives 30 s / 10 s / 60 s',
    async () => {
      const pg = await emptyPostgresDatabase();
      cleanups.push(() => pg.drop());
      const [{ name }] = (await pg.query('select current_database() as name')).rows;

      expect(await limits({ DATABASE_URL: pg.url })).toEqual({ statement: '30s', lock: '10s', idle: '1min', jit: 'off' });

      await queryOnce(`alter database "${name}" set statement_timeout = '1234ms'`);
      await queryOnce(`alter database "${name}" set jit = on`);
      await queryOnce(`alter database "${name}" set lock_timeout = '2345ms'`);
      await queryOnce(`alter database "${name}" set idle_in_transaction_session_timeout = '3min'`);
      expect(await limits({ DATABASE_URL: pg.url }), 'the database’s settings').toEqual({ statement: '1234ms', lock: '2345ms', idle: '3min', jit: 'on' });
      expect(await limits({ DATABASE_URL: pg.url, DB_STATEMENT_TIMEOUT_MS: '500', DB_LOCK_TIMEOUT_MS: '0' }), 'the variables win').toEqual({
        statement: '500ms',
        lock: '0',
        idle: '1min',
        jit: 'on',
      });
      expect(await limits({ DATABASE_URL: pg.url, DB_STATEMENT_TIMEOUT_MS: '0' }), '0 is none, over the database’s').toEqual({
        statement: '0',
        lock: '2345ms',
        idle: '0',
        jit: 'on',
      });

      // A role of its own, with its own limit (what docs/operations.md advises behind PgBouncer).
      const role = `t_role_${randomBytes(4).toString('hex')}`;
      await queryOnce(`create role ${role} login`);
      cleanups.push(() => queryOnce(`drop role if exists ${role}`));
      await queryOnce(`alter role ${role} set statement_timeout = '4567ms'`);
      const asRole = new URL(pg.url);
      asRole.username = role;
      expect(await limits({ DATABASE_URL: asRole.toString() }), 'the role’s setting').toMatchObject({ statement: '4567ms', lock: '2345ms' });
    },
    60_000,
  );

  it.skipIf(onPostgres)(
    'embedded: 30 s / 10 s / 60 s unless the variables say otherwise (PGlite applies no role or database settings)',
    async () => {
      expect(await limits({}, true)).toEqual({ statement: '30s', lock: '10s', idle: '1min', jit: 'off' });
      expect(await limits({ DB_STATEMENT_TIMEOUT_MS: '700', DB_LOCK_TIMEOUT_MS: '0' }, true)).toEqual({
        statement: '700ms',
        lock: '0',
        idle: '1min',
        jit: 'off',
      });
      expect(await limits({ DB_STATEMENT_TIMEOUT_MS: '0' }, true)).toEqual({ statement: '0', lock: '10s', idle: '0', jit: 'off' });
    },
    120_000,
  );

  // docs/operations.md says so: on the embedded database nothing cancels a statement, so what bounds one is
  // its own budget (a page, a walk, a count's limit). When PGlite starts enforcing the limit, this fails and
  // the docs change with it.
  it.skipIf(onPostgres)('embedded: the statement limit is carried but not enforced (PGlite has no timer to cancel a statement)', async () => {
    const config = loadConfig({ NODE_ENV: 'test', DB_STATEMENT_TIMEOUT_MS: '100' });
    const db = await openServiceDatabase(config, logger, startEmbedded({ maxConnections: config.dbPoolMax + 2 }), { migrate: false, timeouts: true });
    try {
      const em = db.orm.em.fork();
      const [{ limit }] = await em.execute<{ limit: string }[]>(`select current_setting('statement_timeout') as limit`);
      expect(limit).toBe('100ms');
      // answered, not refused 57014 (on PostgreSQL this statement fails after 100 ms)
      const [{ slept }] = await em.execute<{ slept: number }[]>('select 1 as slept from (select pg_sleep(0.4)) s');
      expect(slept).toBe(1);
    } finally {
      await db.close();
    }
  });
});
