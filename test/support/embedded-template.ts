// Run as a child process by global-setup.ts: `node --import tsx test/support/embedded-template.ts <folder>`
// migrates a new embedded data folder under <folder> and writes <folder>/migrated.tar (PGlite's
// dumpDataDir), which every test file's in-memory database then loads. A child process, because PGlite's
// WebAssembly memory never leaves the process that ran it, and vitest's global setup cannot resolve it.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { migrate, openDatabase } from '../../server/persistence/database.js';
import { embeddedDataFolder } from '../../server/persistence/embedded.js';

const folder = process.argv[2];
if (!folder) throw new Error('usage: embedded-template.ts <folder>');
const dataDir = join(folder, 'data');
const db = await openDatabase({ dataDir, poolMax: 2 });
try {
  await migrate(db.orm);
} finally {
  await db.close();
}
const pglite = await PGlite.create(embeddedDataFolder(dataDir), { extensions: { pg_trgm } });
const tar = await pglite.dumpDataDir('none');
await pglite.close();
await writeFile(join(folder, 'migrated.tar'), Buffer.from(await tar.arrayBuffer()));
