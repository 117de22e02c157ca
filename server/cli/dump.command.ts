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
import { checkDump, DumpError, exportRows, importRows, nonEmptyTables, type DumpCheckOptions, type DumpText } from '../persistence/dump.js';
import { existingSessionSecret, makeDeps, openServiceDatabase } from '../runtime.js';
import { unreadableEnrolments } from '../persistence/second-factor.js';
import type { CommandRun } from './commands.js';

const EXPORT_USAGE = 'Usage: market-service export [--out FILE]   (standard output without --out)';
const IMPORT_USAGE = 'Usage: market-service import [--allow-unverified] FILE   (--allow-unverified: accept a dump written before dumps carried a digest)';

function progress(label: string, counts: Record<string, number>) {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  process.stderr.write(
    `\r${label} ${total} rows (${Object.entries(counts)
      .map(([t, n]) => `${t} ${n}`)
      .join(', ')})`,
  );
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
    let sha256 = '';
    // One consistent snapshot, even while the service keeps writing.
    await db.orm.em.fork().transactional(
      async (tx) => {
        for await (const { line, text } of exportRows(tx, applied, new Date())) {
          if (line.kind === 'row') {
            counts[line.table] = (counts[line.table] ?? 0) + 1;
            if ((counts[line.table] & 0x3fff) === 0) progress('exported', counts);
          }
          if (line.kind === 'end') sha256 = line.sha256!;
          if (!sink.write(`${text}\n`)) await once(sink, 'drain');
        }
      },
      { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
    );
    progress('exported', counts);
    // Kept apart from the file, this digest shows later that the file is the one exported.
    process.stderr.write(`\nsha256 ${sha256}\n`);
    if (out) {
      sink.end();
      await once(sink, 'finish');
    }
    return 0;
  } finally {
    await db.close();
  }
};

async function* fileLines(file: string): AsyncGenerator<DumpText> {
  let n = 0;
  for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) yield { n: ++n, text };
}

export const runImport: CommandRun = async (args, { config, logger }) => {
  let file: string | undefined;
  let allowUnverified = false;
  try {
    const parsed = parseArgs({ args, options: { 'allow-unverified': { type: 'boolean' } }, strict: true, allowPositionals: true });
    if (parsed.positionals.length === 1) file = parsed.positionals[0];
    allowUnverified = parsed.values['allow-unverified'] ?? false;
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
    let warned = false;
    const opts: DumpCheckOptions = {
      migrations: applied,
      allowUnverified,
      onUnverified: () => {
        if (!warned) console.error('Warning: this dump was written before dumps carried a digest; whether it was altered cannot be checked.');
        warned = true;
      },
    };
    // The whole file first, writing nothing: an altered, truncated or foreign file is refused before any row.
    await checkDump(fileLines(file), opts);
    const { counts, sha256 } = await em.transactional((tx) => importRows(tx, fileLines(file), opts, (c) => progress('imported', c)));
    progress('imported', counts);
    process.stderr.write('\n');
    const deps = makeDeps(config, logger, db, '');
    const ctx = { caller: systemCaller(), via: 'cli' as const, requestId: `cli-${deps.newId()}` };
    const rebuilt = await rebuildTensionProjection(
      deps,
      ctx,
      { dryRun: false },
      {
        onProgress: ({ streams, events }) => process.stderr.write(`\rprojection: replayed ${events} events of ${streams} streams`),
      },
    );
    process.stderr.write('\n');
    if (!rebuilt.ok) {
      console.error(`${rebuilt.code}: ${rebuilt.detail}`);
      return 1;
    }
    // Second factors are encrypted under the exporting server's secret (never in plain text in the dump).
    const unreadable = await unreadableEnrolments(em, await existingSessionSecret(config));
    if (unreadable > 0) {
      console.error(
        `Warning: ${unreadable} user(s) have a second factor this server cannot read: start it with the exporting server's SESSION_SECRET ` +
          "(or its data folder's session-secret file), or reset their second factor (POST /users/:id/mfa/reset).",
      );
    }
    console.log(JSON.stringify({ imported: counts, sha256, projection: rebuilt.value }, null, 2));
    return 0;
  } catch (err) {
    if (err instanceof DumpError) {
      console.error(`Import refused, nothing was written: ${err.message}.`);
      return 1;
    }
    throw err;
  } finally {
    await db.close();
  }
};
