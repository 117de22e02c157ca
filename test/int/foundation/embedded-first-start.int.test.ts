// Issue 29 (the embedded database's memory): a new data folder is made in a child process and renamed into
// place, and PostgreSQL runs with shared_buffers sized for one service. What it writes survives a restart;
// a start finds an empty `pgdata` folder (made by hand, or by a start that went no further) and fills it.
// The memory figures themselves are in docs/operations.md, not asserted here.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedDataFolder, startEmbedded, type EmbeddedDatabase } from '../../../server/persistence/embedded.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function sql(db: EmbeddedDatabase, text: string): Promise<any[]> {
  const client = new pg.Client({ host: db.connection.host, port: db.connection.port, user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

describe('the embedded database’s first start', () => {
  it('fills an empty data folder, runs with shared_buffers at 32 MB, leaves no staging folder, and keeps its data across a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'first-start-'));
    dirs.push(dataDir);
    await mkdir(embeddedDataFolder(dataDir)); // an empty pgdata, as a start that went no further leaves it

    const first = await startEmbedded({ dataDir, maxConnections: 2 });
    try {
      expect(await sql(first, `select current_setting('shared_buffers') as v`)).toEqual([{ v: '32MB' }]);
      await sql(first, `create table kept (n int); insert into kept values (42)`);
    } finally {
      await first.close();
    }
    expect(
      (await readdir(dataDir)).filter((n) => n.startsWith('pgdata.new-')),
      'no staging folder left',
    ).toEqual([]);
    expect(existsSync(join(embeddedDataFolder(dataDir), 'PG_VERSION'))).toBe(true);

    const again = await startEmbedded({ dataDir, maxConnections: 2 });
    try {
      expect(await sql(again, `select n from kept`)).toEqual([{ n: 42 }]);
      expect(await sql(again, `select current_setting('shared_buffers') as v`)).toEqual([{ v: '32MB' }]);
    } finally {
      await again.close();
    }
  }, 240_000);
});
