// The portable dump (SPEC §9): every row that is a record of truth, as NDJSON, table by table in
// foreign-key order; the projection is not in it (import rebuilds it), nor sessions or login attempts.
// The end line carries a SHA-256 digest of every line before it; import checks the whole file (header,
// table order, counts, digest) before its first write, then loads it in one transaction.
import { createHash } from 'node:crypto';
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
  // The second factor (SPEC §16): the secret stays encrypted under a key derived from the server's secret, so
  // the dump never holds it in plain text; enrolments keep working where the importing server has the same
  // SESSION_SECRET (docs/identity.md). Recovery codes are salted hashes. Pending sign-in challenges are not kept.
  { name: 'user_mfa', key: ['user_id'] },
  { name: 'user_recovery_codes', key: ['id'] },
  // The transaction id orders the feed inside one database only; the import's own transaction stamps
  // every event, so the feed order of an imported database is the position order.
  { name: 'domain_events', key: ['position'], local: ['transaction_id'] },
  // Append-only, like domain_events: the import inserts, which its trigger allows.
  { name: 'audit_log', key: ['id'] },
];

export const DUMP_FORMAT = 'market-service-dump';
/** 2: the end line carries `sha256`. 1 (before it): read only when the operator accepts an unverified file. */
export const DUMP_VERSION = 2;
const UNVERIFIED_VERSION = 1;

export type DumpLine =
  | { kind: 'header'; format: typeof DUMP_FORMAT; version: number; migrations: string[]; exportedAt: string }
  | { kind: 'row'; table: string; row: Record<string, unknown> }
  | { kind: 'end'; counts: Record<string, number>; sha256?: string };

/** A line of a dump file as read: its text (without the line break) and its number, for messages. */
export interface DumpText {
  n: number;
  text: string;
}

/** SHA-256 over each line's text and its `\n`, in file order: what export writes in the end line. */
class LineDigest {
  private readonly hash = createHash('sha256');
  add(text: string) {
    this.hash.update(text);
    this.hash.update('\n');
  }
  hex() {
    return this.hash.digest('hex');
  }
}

const BATCH = 1000;

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Yields every line of the dump, as the text to write (one line each) and the line itself; reads each
 * table in keyset batches inside one repeatable-read snapshot. The end line's `sha256` covers every line before it.
 */
export async function* exportRows(tx: EntityManager, migrations: string[], exportedAt: Date): AsyncGenerator<{ line: DumpLine; text: string }> {
  const digest = new LineDigest();
  const out = (line: DumpLine) => {
    const text = JSON.stringify(line);
    digest.add(text);
    return { line, text };
  };
  yield out({ kind: 'header', format: DUMP_FORMAT, version: DUMP_VERSION, migrations, exportedAt: exportedAt.toISOString() });
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
      for (const { r } of rows) yield out({ kind: 'row', table: table.name, row: r });
      counts[table.name] += rows.length;
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1].k;
    }
  }
  const end: DumpLine = { kind: 'end', counts, sha256: digest.hex() };
  yield { line: end, text: JSON.stringify(end) };
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

export interface DumpCheckOptions {
  /** the migrations this database has: a dump from a newer schema is refused */
  migrations: string[];
  /** accept a dump of format version 1, which has no digest (told through `onUnverified`) */
  allowUnverified?: boolean;
  onUnverified?: () => void;
}

export interface DumpSummary {
  counts: Record<string, number>;
  /** the digest the file carries and matches; null for an accepted version-1 dump */
  sha256: string | null;
}

/**
 * The rows of a dump, checked as they come: the header (format, version, schema), table order, that the
 * file is complete (the end line and its counts), and the digest of every line before the end line. Any
 * failure throws a DumpError, at the latest when the end line is read, before the caller's last write;
 * `checkDump` runs it alone, so an import can know the file is intact before writing anything.
 */
export async function* checkedRows(
  texts: AsyncIterable<DumpText>,
  opts: DumpCheckOptions,
): AsyncGenerator<{ table: string; row: Record<string, unknown> }, DumpSummary> {
  const order = DUMP_TABLES.map((t) => t.name);
  const counts: Record<string, number> = Object.fromEntries(order.map((t) => [t, 0]));
  const digest = new LineDigest();
  let version: number | null = null;
  let table = '';
  let end: Extract<DumpLine, { kind: 'end' }> | null = null;
  for await (const { n, text } of texts) {
    if (!text.trim()) continue;
    if (end) throw new DumpError('the dump continues after its end line');
    let line: DumpLine;
    try {
      line = JSON.parse(text) as DumpLine;
    } catch {
      throw new DumpError(`line ${n} is not JSON`);
    }
    if (line?.kind === 'end' && version !== null) {
      end = line;
      continue;
    }
    digest.add(text);
    if (version === null) {
      if (line?.kind !== 'header' || line.format !== DUMP_FORMAT) throw new DumpError('not a market-service dump (no header line)');
      if (line.version === UNVERIFIED_VERSION) {
        if (!opts.allowUnverified) {
          throw new DumpError(
            'this dump was written before dumps carried a digest (format version 1), so whether it was altered cannot be checked; ' +
              'export it again with this version, or import it with --allow-unverified if you trust the file',
          );
        }
        opts.onUnverified?.();
      } else if (line.version !== DUMP_VERSION) {
        throw new DumpError(`dump format version ${line.version} is not supported (this build reads ${UNVERIFIED_VERSION} and ${DUMP_VERSION})`);
      }
      const missing = (Array.isArray(line.migrations) ? line.migrations : []).filter((m) => !opts.migrations.includes(m));
      if (missing.length) throw new DumpError(`the dump comes from a newer schema (${missing.join(', ')}); upgrade this service first`);
      version = line.version;
      continue;
    }
    if (line?.kind !== 'row' || !order.includes(line.table) || !line.row || typeof line.row !== 'object') {
      throw new DumpError(`unexpected line ${n} in the dump: ${text.slice(0, 80)}`);
    }
    if (line.table !== table) {
      if (order.indexOf(line.table) < order.indexOf(table)) throw new DumpError(`table ${line.table} after ${table}: the dump is out of order`);
      table = line.table;
    }
    counts[table]++;
    yield { table, row: line.row };
  }
  if (version === null) throw new DumpError('not a market-service dump (no header line)');
  if (!end) throw new DumpError('the dump is incomplete (no end line)');
  let sha256: string | null = null;
  if (version === DUMP_VERSION) {
    if (typeof end.sha256 !== 'string') throw new DumpError('the end line has no digest: the file was altered');
    sha256 = digest.hex();
    if (end.sha256 !== sha256) throw new DumpError('the digest in the end line does not match the file: it was altered or damaged');
  }
  for (const t of order) {
    if ((end.counts?.[t] ?? 0) !== (counts[t] ?? 0))
      throw new DumpError(`table ${t}: the dump promises ${end.counts?.[t] ?? 0} rows, ${counts[t] ?? 0} were read`);
  }
  return { counts, sha256 };
}

/** Reads a whole dump without writing anything: its summary, or the DumpError that says what is wrong. */
export async function checkDump(texts: AsyncIterable<DumpText>, opts: DumpCheckOptions): Promise<DumpSummary> {
  const rows = checkedRows(texts, opts);
  for (;;) {
    const next = await rows.next();
    if (next.done) return next.value;
  }
}

/**
 * Loads a dump into `tx` (the caller's one transaction: all of it or nothing), batching rows per table.
 * The file is checked again as it is read (it could have changed since `checkDump`): a failure throws
 * before the last batch is written, and the caller's transaction rolls back.
 */
export async function importRows(
  tx: EntityManager,
  texts: AsyncIterable<DumpText>,
  opts: DumpCheckOptions,
  onProgress?: (counts: Record<string, number>) => void,
): Promise<DumpSummary> {
  // The import appends events after writing other tables: the feed lock first (see takeFeedLock).
  await takeFeedLock(tx);
  const counts: Record<string, number> = {};
  let batch: Record<string, unknown>[] = [];
  let batchTable = '';
  const flush = async () => {
    if (!batch.length) return;
    const spec = DUMP_TABLES.find((t) => t.name === batchTable)!;
    const cols = Object.keys(batch[0])
      .filter((c) => !(spec.local ?? []).includes(c))
      .map(ident)
      .join(', ');
    await tx.execute(`insert into ${ident(batchTable)} (${cols}) select ${cols} from jsonb_populate_recordset(null::${ident(batchTable)}, ?::jsonb)`, [
      JSON.stringify(batch),
    ]);
    counts[batchTable] = (counts[batchTable] ?? 0) + batch.length;
    batch = [];
    onProgress?.(counts);
  };
  const rows = checkedRows(texts, opts);
  let next = await rows.next();
  while (!next.done) {
    const { table, row } = next.value;
    if (table !== batchTable) {
      await flush();
      batchTable = table;
    }
    batch.push(row);
    if (batch.length >= 500) await flush();
    next = await rows.next();
  }
  await flush();
  // Positions continue after the imported ones.
  await tx.execute(`select setval(pg_get_serial_sequence('domain_events', 'position'), coalesce((select max(position) from domain_events), 0) + 1, false)`);
  return next.value;
}
