// A start on PostgreSQL says whether `shared_buffers` hold the tensions table and its indexes
// (server/persistence/buffer-sizing.ts, docs/operations.md): a warning when they do not, an info line when
// they do. A private cluster with the smallest `shared_buffers` (128 kB: an empty migrated `tensions` fits,
// 2,000 tensions with their indexes do not) and the shared server's (128 MB) against an empty database.
import { Writable } from 'node:stream';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyPostgresDatabase, onPostgres, queryOnce } from '../../support/database.js';
import { privatePostgresUnavailable, startPrivatePostgres, type PrivatePostgres } from '../../support/private-postgres.js';
import { startService } from '../../../server/main.js';
import { loadConfig } from '../../../server/config.js';
import { createLogger } from '../../../server/logger.js';

const SIZING = /^database: shared_buffers (is smaller than|holds) the tensions table/;

/** Starts the service on `databaseUrl` and answers its sizing line (waiting for it), then stops it. */
async function sizingLineOfStart(databaseUrl: string): Promise<Record<string, unknown>> {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: await mkdtemp(join(tmpdir(), 'buffer-sizing-')),
    SESSION_SECRET: 'buffer-sizing-session-secret-0123456789abcdef',
    ADMIN_EMAIL: 'admin@buffer-sizing.example',
    ADMIN_PASSWORD: 'admin-password-sizing-1',
    DATABASE_URL: databaseUrl,
    PASSWORD_HASHING: 'floor',
  });
  const service = await startService(config, createLogger('info', sink));
  try {
    for (let i = 0; i < 200 && !lines.some((l) => SIZING.test(String(l.msg))); i++) await new Promise((r) => setTimeout(r, 25));
    return lines.find((l) => SIZING.test(String(l.msg)))!;
  } finally {
    await service.close();
  }
}

const unavailable = privatePostgresUnavailable();

describe.skipIf(!onPostgres)('the buffer sizing a start reports', () => {
  let cluster: PrivatePostgres | undefined;
  afterAll(async () => {
    await cluster?.destroy();
  });

  it.skipIf(unavailable !== null)(
    'warns when shared_buffers are smaller than the tensions table and its indexes',
    async () => {
      cluster = await startPrivatePostgres({ shared_buffers: '128kB' });
      await queryOnce('create database market', cluster.url());
      // the first start migrates; an empty tensions table and its indexes fit in 128 kB
      expect(await sizingLineOfStart(cluster.url('market'))).toMatchObject({ level: 30, sharedBuffersBytes: 128 * 1024 });
      await queryOnce(
        `insert into actors (id, name, type, created_at, updated_at)
           values ('00000000-0000-4000-a000-000000000001', 'Sizing Co', 'organization', now(), now());
         insert into tensions (id, name, current_context, potential_future, score, state, actor_id, lead_user_id, version, created_at, updated_at)
           select gen_random_uuid(), 'Tension ' || g, repeat('now ', 20), repeat('later ', 20), g % 10 + 1, 'alive',
                  '00000000-0000-4000-a000-000000000001', null, 1, now(), now()
           from generate_series(1, 2000) g`,
        cluster.url('market'),
      );
      const line = await sizingLineOfStart(cluster.url('market'));
      expect(line).toMatchObject({ level: 40, sharedBuffersBytes: 128 * 1024 });
      expect(line.msg).toContain('is smaller than');
      expect(line.tensionsBytes as number).toBeGreaterThan(128 * 1024);
    },
    120_000,
  );

  it('says so, at info, when they hold it (the shared server: 128 MB, an empty database)', async () => {
    const pg = await emptyPostgresDatabase();
    try {
      const line = await sizingLineOfStart(pg.url);
      expect(line).toMatchObject({ level: 30 });
      expect(line.sharedBuffersBytes as number).toBeGreaterThanOrEqual(line.tensionsBytes as number);
      expect(line.tensionsBytes as number).toBeGreaterThan(0);
    } finally {
      await pg.drop();
    }
  }, 60_000);
});
