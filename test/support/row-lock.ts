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
    async waitForWaiters(n, timeoutMs = 15_000) {
      // a second connection: pg_stat_activity is read once per transaction, and the holder's stays open
      const watcher = new pg.Client({ connectionString: databaseUrl });
      await watcher.connect();
      try {
        for (const deadline = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 20))) {
          const { rows } = await watcher.query(
            `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
          );
          if (rows[0].n >= n) return rows[0].n;
          if (Date.now() > deadline) throw new Error(`only ${rows[0].n} of ${n} commands queued on the held row within ${timeoutMs} ms`);
        }
      } finally {
        await watcher.end();
      }
    },
    async release() {
      await holder.query('commit');
      await holder.end();
    },
  };
}
