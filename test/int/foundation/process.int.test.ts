import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, onPostgres, type TestDatabase } from '../../support/database.js';
import { startServerProcess } from '../../support/process.js';

let db: TestDatabase | undefined;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'market-proc-'));
  if (onPostgres) {
    db = await createTestDatabase({ poolMax: 1 });
    env = { DATABASE_URL: db.url!, DATA_DIR: dataDir };
  } else {
    env = { DATA_DIR: dataDir };
  }
});
afterAll(async () => {
  await db?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the market-service process', () => {
  it('starts, migrates, creates the first admin once, and shuts down cleanly on SIGTERM', async () => {
    const first = await startServerProcess({ ...env, ADMIN_EMAIL: 'boss@test.example' });
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    expect(first.output()).toMatch(/email:\s+boss@test\.example/);
    expect(first.output()).toMatch(/password:\s+\S{20,}/);
    expect(await first.stop()).toBe(0);

    const second = await startServerProcess(env);
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    expect(second.output()).not.toMatch(/password:/);
    expect(await second.stop()).toBe(0);
  }, 320_000);

  it('reports every configuration problem at once and exits non-zero', async () => {
    await expect(
      startServerProcess({ ...env, PORT: 'not-a-port', DATABASE_URL: 'mysql://nope', NODE_ENV: 'production' }, 90_000),
    ).rejects.toThrow(/PORT[\s\S]*DATABASE_URL[\s\S]*SESSION_SECRET/);
  }, 120_000);
});
