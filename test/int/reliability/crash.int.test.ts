// A server process killed with SIGKILL in the middle of sustained command load, then restarted on the
// same database: no partial transaction, no duplicated or lost acknowledged event, and it answers again.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, onPostgres, type TestDatabase } from '../../support/database.js';
import { startServerProcess, type ServerProcess } from '../../support/process.js';
import { checkEventStore, CONSISTENT, dryRunRebuild, login, PROCESS_ADMIN, PROCESS_SECRET, sessionApi } from '../../support/consistency.js';
import { openDatabase } from '../../../server/persistence/database.js';

const WORKERS = 8;
/** kill once this many commands were acknowledged, so the load is well under way */
const ACKNOWLEDGED_BEFORE_KILL = 60;

let db: TestDatabase | undefined;
let dataDir: string;
let env: Record<string, string>;
const running: ServerProcess[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'market-crash-'));
  env = { DATA_DIR: dataDir, SESSION_SECRET: PROCESS_SECRET, ADMIN_EMAIL: PROCESS_ADMIN.email, ADMIN_PASSWORD: PROCESS_ADMIN.password };
  if (onPostgres) {
    db = await createTestDatabase({ poolMax: 2 });
    env.DATABASE_URL = db.url!;
  }
});
afterAll(async () => {
  for (const p of running) await p.kill();
  await db?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Runs `fn` on the database the processes used, once no process holds it (the embedded one is single-process). */
async function withDatabase<T>(fn: (em: EntityManager) => Promise<T>): Promise<T> {
  if (db) return fn(db.orm.em.fork());
  const embedded = await openDatabase({ dataDir, poolMax: 2 });
  try {
    return await fn(embedded.orm.em.fork());
  } finally {
    await embedded.close();
  }
}

describe(`a server killed under load (${onPostgres ? 'PostgreSQL' : 'embedded database'})`, () => {
  it('recovers with no partial, duplicated or lost transaction and answers again', async () => {
    const first = await startServerProcess(env);
    running.push(first);
    const api = await login(first.url);
    const actor = await api.call('POST', '/actors', { name: 'Crash Org', type: 'organization' });
    expect(actor.status).toBe(201);
    const tensions: string[] = [];
    for (let i = 0; i < 4; i++) tensions.push((await api.call('POST', '/tensions', { name: `Crash ${i}`, actorId: actor.body.id })).body.tension.id);

    /** (tension, version) of every appended event the server acknowledged */
    const acknowledged: { id: string; version: number }[] = tensions.map((id) => ({ id, version: 1 }));
    const figures = { sent: 0, acknowledged: 0, inFlightAtKill: 0, refused: 0, fiveHundreds: 0 };
    let killed = false;
    let i = 0;
    const worker = async () => {
      while (!killed) {
        const n = i++;
        const sense = n % 6 === 0;
        const target = tensions[n % tensions.length];
        figures.sent++;
        try {
          const res = sense
            ? await api.call('POST', '/tensions', { name: `Crash load ${n}`, actorId: actor.body.id, currentContext: 'x'.repeat(n % 500) })
            : await api.call('POST', `/tensions/${target}/${n % 2 ? 'rename' : 'rescore'}`, n % 2 ? { name: `Load ${n}` } : { score: (n % 10) + 1 });
          if (res.status >= 500) figures.fiveHundreds++;
          if (res.status < 300) {
            figures.acknowledged++;
            if (res.body.event) acknowledged.push({ id: res.body.tension.id, version: res.body.event.version });
          } else figures.refused++;
        } catch {
          // the connection died with the process: the command may or may not have committed
          figures.inFlightAtKill++;
        }
      }
    };
    const load = Promise.all(Array.from({ length: WORKERS }, worker));
    while (figures.acknowledged < ACKNOWLEDGED_BEFORE_KILL) await new Promise((r) => setTimeout(r, 20));
    // Stop sending before the kill: a request sent to a dead server is refused, not "in flight", and
    // counting it would loosen the bound on stored-but-unacknowledged events below.
    killed = true;
    await first.kill();
    await load;
    running.splice(running.indexOf(first), 1);
    expect(figures.fiveHundreds).toBe(0);
    // each worker has at most one request open, so at most WORKERS can have been cut off
    expect(figures.inFlightAtKill).toBeLessThanOrEqual(WORKERS);

    // Restart on the same database; the old session cookie still works (sessions live in the database).
    const second = await startServerProcess(env);
    running.push(second);
    const again = sessionApi(second.url, api.cookie);
    const report = await dryRunRebuild(again);
    expect(report).toMatchObject({ inserted: 0, updated: 0, deleted: 0 });
    const after = await again.call('POST', `/tensions/${tensions[0]}/rename`, { name: 'After the crash' });
    expect(after.status).toBe(200);
    expect(after.body.event.type).toBe('TensionRenamed');
    expect(await second.stop()).toBe(0);
    running.splice(running.indexOf(second), 1);

    const { store, missing } = await withDatabase(async (em) => {
      const store = await checkEventStore(em);
      const rows: { stream_id: string; version: number }[] = await em.execute('select stream_id, version from domain_events');
      const stored = new Set(rows.map((r) => `${r.stream_id}:${r.version}`));
      return { store, missing: acknowledged.filter((e) => !stored.has(`${e.id}:${e.version}`)) };
    });
    expect(store).toMatchObject(CONSISTENT);
    expect(missing).toEqual([]);
    // every stored event beyond the acknowledged ones belongs to a command cut off by the kill, or the one after
    expect(store.events - acknowledged.length - 1).toBeLessThanOrEqual(figures.inFlightAtKill);
    console.log(
      `crash (${onPostgres ? 'postgres' : 'embedded'}): ${figures.sent} requests sent, 1 fault injected (SIGKILL) with ${figures.inFlightAtKill} in flight, ` +
        `${figures.acknowledged} acknowledged, ${store.events} events stored, rebuild differences 0, 5xx seen: ${figures.fiveHundreds}`,
    );
  }, 150_000);
});
