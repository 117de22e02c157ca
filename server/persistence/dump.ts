// The portable dump (SPEC §9): every row that is a record of truth, as NDJSON, table by table in
// foreign-key order; the projection is not in it (import rebuilds it), nor sessions or login attempts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { takeFeedLock } from './event-store.js';

interface TableSpec {
  name: string;
  /** keyset order for export, so memory stays constant whatever the table's size */
  key: string[];
  /** database-local columns left to their defaults on import */
  local?: string[];
}

/** Foreign-key order: a row's references are always imported before it. */
export const DUMP_TABLES: TableSpec[] = [
  { name: 'actors', key: ['id'] },
  { name: 'roles', key: ['id'] },
  { name: 'role_inherits', key: ['role_id', 'inherited_role_id'] },
  { name: 'users', key: ['id'] },
  { name: 'user_roles', key: ['user_id', 'role_id'] },
  { name: 'api_keys', key: ['id'] },
  // The transaction id orders the feed inside one database only; the import's own transaction stamps
  // every event, so the feed order of an imported database is the position order.
  { name: 'domain_events', key: ['position'], local: ['transaction_id'] },
  // Append-only, like domain_events: the import inserts, which its trigger allows.
  { name: 'audit_log', key: ['id'] },
];

export const DUMP_FORMAT = 'market-service-dump';
export const DUMP_VERSION = 1;

export type DumpLine =
  | { kind: 'header'; format: typeof DUMP_FORMAT; version: number; migrations: string[]; exportedAt: string }
  | { kind: 'row'; table: string; row: Record<string, unknown> }
  | { kind: 'end'; counts: Record<string, number> };

const BATCH = 1000;

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Yields every line of the dump; reads each table in keyset batches inside one repeatable-read snapshot. */
export async function* exportRows(tx: EntityManager, migrations: string[], exportedAt: Date): AsyncGenerator<DumpLine> {
  yield { kind: 'header', format: DUMP_FORMAT, version: DUMP_VERSION, migrations, exportedAt: exportedAt.toISOString() };
  const counts: Record<string, number> = {};
  for (const table of DUMP_TABLES) {
    counts[table.name] = 0;
    const keys = table.key.map(ident).join(', ');
    const drop = (table.local ?? []).map((c) => ` - '${c}'`).join('');
    let after: unknown[] | null = null;
    for (;;) {
      const where: string = after ? `where (${keys}) > (${table.key.map(() => '?').join(', ')})` : '';
      const rows: { r: Record<string, unknown>; k: unknown[] }[] = await tx.execute(
        `select to_jsonb(t)${drop} as r, jsonb_build_array(${table.key.map((k) => `t.${ident(k)}`).join(', ')}) as k
           from ${ident(table.name)} t ${where} order by ${keys} limit ${BATCH}`,
        after ?? [],
      );
      for (const { r } of rows) yield { kind: 'row', table: table.name, row: r };
      counts[table.name] += rows.length;
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1].k;
    }
  }
  yield { kind: 'end', counts };
}

export class DumpError extends Error {}

/** Tables that must be empty before an import (a fresh, migrated database). */
export async function nonEmptyTables(em: EntityManager): Promise<string[]> {
  const found: string[] = [];
  for (const table of DUMP_TABLES) {
    const [row] = await em.execute(`select exists (select 1 from ${ident(table.name)}) as some`);
    if (row.some) found.push(table.name);
  }
  return found;
}

/**
 * Loads a dump's lines into `tx` (the caller's one transaction: all of it or nothing), batching rows per
 * table; checks the header's format, that the file is complete (the end line's counts), and table order.
 */
export async function importRows(
  tx: EntityManager,
  lines: AsyncIterable<DumpLine>,
  expectMigrations: string[],
  onProgress?: (counts: Record<string, number>) => void,
): Promise<Record<string, number>> {
  // The import appends events after writing other tables: the feed lock first (see takeFeedLock).
  await takeFeedLock(tx);
  const counts: Record<string, number> = {};
  const order = DUMP_TABLES.map((t) => t.name);
  let header = false;
  let ended = false;
  let batch: Record<string, unknown>[] = [];
  let batchTable = '';
  const flush = async () => {
    if (!batch.length) return;
    const spec = DUMP_TABLES.find((t) => t.name === batchTable)!;
    const cols = Object.keys(batch[0]).filter((c) => !(spec.local ?? []).includes(c)).map(ident).join(', ');
    await tx.execute(
      `insert into ${ident(batchTable)} (${cols}) select ${cols} from jsonb_populate_recordset(null::${ident(batchTable)}, ?::jsonb)`,
      [JSON.stringify(batch)],
    );
    counts[batchTable] = (counts[batchTable] ?? 0) + batch.length;
    batch = [];
    onProgress?.(counts);
  };
  for await (const line of lines) {
    if (ended) throw new DumpError('the dump continues after its end line');
    if (!header) {
      if (line.kind !== 'header' || line.format !== DUMP_FORMAT) throw new DumpError('not a market-service dump (no header line)');
      if (line.version !== DUMP_VERSION) throw new DumpError(`dump format version ${line.version} is not supported (this build reads ${DUMP_VERSION})`);
      const missing = line.migrations.filter((m) => !expectMigrations.includes(m));
      if (missing.length) throw new DumpError(`the dump comes from a newer schema (${missing.join(', ')}); upgrade this service first`);
      header = true;
      continue;
    }
    if (line.kind === 'end') {
      await flush();
      for (const t of order) {
        if ((line.counts[t] ?? 0) !== (counts[t] ?? 0)) throw new DumpError(`table ${t}: the dump promises ${line.counts[t] ?? 0} rows, ${counts[t] ?? 0} were read`);
      }
      ended = true;
      continue;
    }
    if (line.kind !== 'row' || !order.includes(line.table)) throw new DumpError(`unexpected line in the dump: ${JSON.stringify(line).slice(0, 80)}`);
    if (line.table !== batchTable) {
      await flush();
      if (order.indexOf(line.table) < order.indexOf(batchTable)) throw new DumpError(`table ${line.table} after ${batchTable}: the dump is out of order`);
      batchTable = line.table;
    }
    batch.push(line.row);
    if (batch.length >= 500) await flush();
  }
  if (!ended) throw new DumpError('the dump is incomplete (no end line): nothing was imported');
  // Positions continue after the imported ones.
  await tx.execute(
    `select setval(pg_get_serial_sequence('domain_events', 'position'), coalesce((select max(position) from domain_events), 0) + 1, false)`,
  );
  return counts;
}
