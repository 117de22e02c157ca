// `market-service export [--out FILE]` and `import FILE`: the portable NDJSON dump (SPEC §9), streamed
// both ways so memory stays flat whatever the number of events; progress on stderr.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { Writable } from 'node:stream';
import { IsolationLevel } from '@mikro-orm/core';

import { systemCaller } from '../application/context.js';
import { rebuildTensionProjection } from '../application/tensions/index.js';
import { migrationStatus } from '../persistence/database.js';
import { DumpError, exportRows, importRows, nonEmptyTables, type DumpLine } from '../persistence/dump.js';
import { makeDeps, openServiceDatabase } from '../runtime.js';
import type { CommandRun } from './commands.js';

const EXPORT_USAGE = 'Usage: market-service export [--out FILE]   (standard output without --out)';
const IMPORT_USAGE = 'Usage: market-service import FILE';

function progress(label: string, counts: Record<string, number>) {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  process.stderr.write(`\r${label} ${total} rows (${Object.entries(counts).map(([t, n]) => `${t} ${n}`).join(', ')})`);
}

export const runExport: CommandRun = async (args, { config, logger }) => {
  let out: string | undefined;
  try {
    out = parseArgs({ args, options: { out: { type: 'string' } }, strict: true, allowPositionals: false }).values.out;
  } catch (err) {
    console.error(`${(err as Error).message}\n${EXPORT_USAGE}`);
    return 2;
  }
  const db = await openServiceDatabase(config, logger, undefined, { migrate: false });
  const sink: Writable = out ? createWriteStream(out, { mode: 0o600 }) : process.stdout;
  try {
    const { applied, pending } = await migrationStatus(db.orm);
    if (pending.length) {
      console.error(`The database has pending migrations (${pending.join(', ')}): run \`market-service migrate\` first.`);
      return 1;
    }
    const counts: Record<string, number> = {};
    // One consistent snapshot, even while the service keeps writing.
    await (db.orm.em.fork()).transactional(
      async (tx) => {
        for await (const line of exportRows(tx, applied, new Date())) {
          if (line.kind === 'row') {
            counts[line.table] = (counts[line.table] ?? 0) + 1;
            if ((counts[line.table] & 0x3fff) === 0) progress('exported', counts);
          }
          if (!sink.write(`${JSON.stringify(line)}\n`)) await once(sink, 'drain');
        }
      },
      { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
    );
    progress('exported', counts);
    process.stderr.write('\n');
    if (out) {
      sink.end();
      await once(sink, 'finish');
    }
    return 0;
  } finally {
    await db.close();
  }
};

async function* parseLines(file: string): AsyncGenerator<DumpLine> {
  let n = 0;
  for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    n++;
    if (!text.trim()) continue;
    try {
      yield JSON.parse(text) as DumpLine;
    } catch {
      throw new DumpError(`line ${n} is not JSON`);
    }
  }
}

export const runImport: CommandRun = async (args, { config, logger }) => {
  let file: string | undefined;
  try {
    const parsed = parseArgs({ args, options: {}, strict: true, allowPositionals: true });
    if (parsed.positionals.length === 1) file = parsed.positionals[0];
  } catch {
    // usage below
  }
  if (!file) {
    console.error(IMPORT_USAGE);
    return 2;
  }
  try {
    await once(createReadStream(file), 'open');
  } catch (err) {
    console.error(`Cannot read ${file}: ${(err as Error).message}`);
    return 1;
  }
  const db = await openServiceDatabase(config, logger);
  try {
    const em = db.orm.em.fork();
    const filled = await nonEmptyTables(em);
    if (filled.length) {
      console.error(`Import needs an empty database; this one has rows in ${filled.join(', ')}.`);
      return 1;
    }
    const { applied } = await migrationStatus(db.orm);
    const counts = await em.transactional((tx) => importRows(tx, parseLines(file), applied, (c) => progress('imported', c)));
    progress('imported', counts);
    process.stderr.write('\n');
    const deps = makeDeps(config, logger, db, '');
    const ctx = { caller: systemCaller(), via: 'cli' as const, requestId: `cli-${deps.newId()}` };
    const rebuilt = await rebuildTensionProjection(deps, ctx, { dryRun: false }, {
      onProgress: ({ streams, events }) => process.stderr.write(`\rprojection: replayed ${events} events of ${streams} streams`),
    });
    process.stderr.write('\n');
    if (!rebuilt.ok) {
      console.error(`${rebuilt.code}: ${rebuilt.detail}`);
      return 1;
    }
    console.log(JSON.stringify({ imported: counts, projection: rebuilt.value }, null, 2));
    return 0;
  } catch (err) {
    if (err instanceof DumpError) {
      console.error(`Import refused, nothing was written: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await db.close();
  }
};
