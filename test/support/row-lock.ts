// Forces commands to overlap: a transaction on its own connection holds a tension's row lock while
// commands are sent, and lets go once some of them queue on it. PostgreSQL only: the embedded database
// runs one transaction at a time, so there nothing can overlap.
import pg from 'pg';

export interface HeldRow {
  /** resolves once at least `n` backends of this database wait on a lock (fails after `timeoutMs`) */
  waitForWaiters(n: number, timeoutMs?: number): Promise<number>;
  release(): Promise<void>;
}

export function holdTensionRow(databaseUrl: string, tensionId: string): Promise<HeldRow> {
  return holdRow(databaseUrl, 'tensions', tensionId);
}

/** The same for a row of any table with an `id` (users, roles and actors carry versions too). */
export async function holdRow(databaseUrl: string, table: 'tensions' | 'users' | 'roles' | 'actors', id: string): Promise<HeldRow> {
  const holder = new pg.Client({ connectionString: databaseUrl });
  await holder.connect();
  await holder.query('begin');
  const { rowCount } = await holder.query(`select id from ${table} where id = $1 for update`, [id]);
  if (rowCount !== 1) throw new Error(`holdRow: no row ${id} in ${table}`);
  return {
    waitForWaiters: (n, timeoutMs = 15_000) => waitForLockWaiters(databaseUrl, n, { timeoutMs, what: `commands queued on the held row` }),
    async release() {
      await holder.query('commit');
      await holder.end();
    },
  };
}

/**
 * Resolves with how many backends of the database wait on a lock, once at least `n` do (polled every 20 ms
 * on a connection of its own: pg_stat_activity is read once per transaction, so a holder's open one would
 * never see a change). Resolves 0 once `stopped()` says the awaited party finished without waiting; throws,
 * naming `what`, after `timeoutMs`.
 */
export async function waitForLockWaiters(
  databaseUrl: string,
  n: number,
  opts: { timeoutMs?: number; what?: string; stopped?: () => boolean } = {},
): Promise<number> {
  const { timeoutMs = 15_000, what = 'lock waiters', stopped = () => false } = opts;
  const watcher = new pg.Client({ connectionString: databaseUrl });
  await watcher.connect();
  try {
    for (const deadline = Date.now() + timeoutMs; !stopped(); await new Promise((r) => setTimeout(r, 20))) {
      const { rows } = await watcher.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
      if (rows[0].n >= n) return rows[0].n;
      if (Date.now() > deadline) throw new Error(`only ${rows[0].n} of ${n} ${what} within ${timeoutMs} ms`);
    }
    return 0;
  } finally {
    await watcher.end();
  }
}
