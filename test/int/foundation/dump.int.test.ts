// Moving a service (SPEC §9): export from the embedded database, import into a fresh database (PostgreSQL
// when DATABASE_URL is set), and the service answers exactly as before; logins and keys still work.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, migrationStatus, openDatabase, type Database } from '../../../server/persistence/database.js';
import { checkDump, importRows, nonEmptyTables } from '../../../server/persistence/dump.js';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, systemCtx, unwrap } from '../../support/clients.js';
import { rotateUserApiKey } from '../../../server/application/users/api-keys.js';
import { newActor, newTension } from '../../support/tensions.js';
import { createTestDatabase, emptyPostgresDatabase, onPostgres } from '../../support/database.js';
import { runCli } from '../../support/process.js';

let dir: string;
/**
 * One embedded data folder, migrated once (its initdb and migrations run in WebAssembly: seconds of CPU) and
 * closed; each source and each refused import's target starts from a copy of it. The first test's embedded
 * target is the one the CLI's import creates and migrates itself, from nothing.
 */
let migrated: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'market-dump-'));
  migrated = join(dir, 'migrated');
  const db = await openDatabase({ dataDir: migrated, poolMax: 2 });
  try {
    await migrate(db.orm);
  } finally {
    await db.close();
  }
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A new data folder at `dataDir`: a copy of the migrated, empty one. */
async function migratedFolder(dataDir: string): Promise<string> {
  await cp(migrated, dataDir, { recursive: true });
  return dataDir;
}

/** An app on an embedded database kept in `dataDir`, so a CLI process can open it once the app is closed. */
async function embeddedApp(dataDir: string): Promise<TestApp> {
  const db: Database = await openDatabase({ dataDir: await migratedFolder(dataDir), poolMax: 4 });
  await migrate(db.orm); // nothing pending: the copy is migrated
  return startTestApp({}, {}, db);
}

async function login(app: TestApp) {
  const res = await fetch(`${app.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: ADMIN.email, password: ADMIN.password }),
  });
  expect(res.status).toBe(200);
  return res.headers.get('set-cookie')!.split(';')[0];
}

describe('export and import', () => {
  it('moves every user, key, role, actor and event; the imported service answers the same reads, logins and keys', async () => {
    const sourceDir = join(dir, 'source');
    const source = await embeddedApp(sourceDir);
    const agent = await seedUserWithKey(source, {
      grants: ['tensions:read', 'tensions:write', 'tensions:delete', 'actors:read', 'actors:write', 'users:read', 'roles:read', 'audit:read'],
    });
    const api = client(source, agent.key);
    // A rotated key whose id sorts before the key it replaced: the import loads it first, and its reference
    // still holds after the move (checked at the end of the import's transaction: the reference is deferrable).
    const firstId = '00000000-0000-4000-8000-000000000001';
    const rotated = unwrap(
      await rotateUserApiKey({ ...source.deps, newId: () => firstId }, systemCtx(), agent.userId, agent.keyId, { overlapSeconds: 3600 }),
      'rotate',
    );
    expect(rotated).toMatchObject({ id: firstId, rotatedFromId: agent.keyId });
    const actors = [await newActor(api, 'Org A'), await newActor(api, 'Org B')];
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const t = await newTension(api, { name: `Tension ${i}`, actorId: actors[i % 2], score: (i % 10) + 1 });
      ids.push(t.id);
      if (i % 3 === 0) expect((await api.post(`/tensions/${t.id}/rename`, { name: `Renamed ${i}` })).status).toBe(200);
      if (i % 4 === 0) expect((await api.post(`/tensions/${t.id}/resolve`, {})).status).toBe(200);
    }
    expect((await api.del(`/tensions/${ids[5]}`)).status).toBe(204);
    const reads = [
      '/tensions?limit=100',
      `/tensions/${ids[0]}`,
      `/tensions/${ids[5]}/history`,
      `/tensions/${ids[3]}/history?limit=1`,
      '/actors',
      '/users',
      '/roles',
      '/auth/me',
    ];
    // Read first: a read may stamp the key's lastUsedAt, which /auth/me below shows.
    const auditBefore = (await api.get('/audit?limit=100')).body;
    expect(auditBefore.data.length).toBeGreaterThan(3);
    const before = await Promise.all(reads.map(async (p) => ({ path: p, ...(await api.get(p)) })));
    await source.close();

    const dump = join(dir, 'dump.ndjson');
    const exported = await runCli(['export', '--out', dump], { DATA_DIR: sourceDir });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toMatch(/exported \d+ rows/);

    const target = onPostgres ? await emptyPostgresDatabase() : null;
    const targetEnv: Record<string, string> = target ? { DATABASE_URL: target.url } : { DATA_DIR: join(dir, 'target') };
    try {
      const imported = await runCli(['import', dump], targetEnv);
      expect(imported.code, imported.stderr).toBe(0);
      const report = JSON.parse(imported.stdout);
      expect(report.imported.domain_events).toBeGreaterThan(25);
      expect(report.imported.audit_log).toBe(auditBefore.data.length);
      expect(report.projection).toMatchObject({ inserted: 24, deleted: 0 });

      const again = await runCli(['import', dump], targetEnv);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/needs an empty database/);

      const db = await openDatabase(target ? { databaseUrl: target.url, poolMax: 4 } : { dataDir: join(dir, 'target'), poolMax: 4 });
      const moved = await startTestApp({}, {}, db);
      try {
        const api2 = client(moved, agent.key);
        // A key's lastUsedAt moves on with use (at most once a minute): after a slow export and import it may
        // legitimately be restamped by these very reads, so it is the one field not compared.
        const unstamped = (body: any) => (body?.apiKey ? { ...body, apiKey: { ...body.apiKey, lastUsedAt: null } } : body);
        for (const b of before) {
          const after = await api2.get(b.path);
          expect({ path: b.path, status: after.status, body: unstamped(after.body) }).toEqual({ path: b.path, status: b.status, body: unstamped(b.body) });
        }
        // The audit trail moved whole; the import's own projection rebuild is its newest entry.
        const auditAfter = (await api2.get('/audit?limit=100')).body;
        expect(auditAfter.data.slice(1)).toEqual(auditBefore.data);
        expect(auditAfter.data[0]).toMatchObject({ action: 'projections.rebuilt', by: { kind: 'system', via: 'cli' } });
        await login(moved);
        expect((await client(moved, rotated.key).get('/auth/me')).body.apiKey).toMatchObject({ id: firstId, rotatedFromId: agent.keyId });
        // New commands continue the streams and the global order after the imported events.
        expect((await api2.post(`/tensions/${ids[1]}/rescore`, { score: 2 })).status).toBe(200);
        const fresh = await newTension(api2, { name: 'After the move', actorId: actors[0] });
        const [{ ok }] = await moved
          .em()
          .execute(
            `select (select min(position) from domain_events where stream_id = ?) > (select max(position) from domain_events where stream_id <> ?) as ok`,
            [fresh.id, fresh.id],
          );
        expect(ok).toBe(true);
      } finally {
        await moved.close();
      }
    } finally {
      await target?.drop();
    }
  }, 300_000);

  it('refuses a truncated dump, a file that is not a dump, and unknown flags, writing nothing', async () => {
    const sourceDir = join(dir, 'small');
    const source = await embeddedApp(sourceDir);
    await source.close();
    const dump = join(dir, 'small.ndjson');
    expect((await runCli(['export', '--out', dump], { DATA_DIR: sourceDir })).code).toBe(0);
    const lines = (await readFile(dump, 'utf8')).trim().split('\n');
    await writeFile(join(dir, 'truncated.ndjson'), `${lines.slice(0, -1).join('\n')}\n`);
    await writeFile(join(dir, 'garbage.ndjson'), 'hello\n');

    expect((await runCli(['export', '--bogus'], { DATA_DIR: sourceDir })).code).toBe(2);
    expect((await runCli(['import'], { DATA_DIR: sourceDir })).code).toBe(2);
    for (const [file, message] of [
      ['truncated.ndjson', /incomplete/],
      ['garbage.ndjson', /not JSON|not a market-service dump/],
    ] as const) {
      const targetDir = await migratedFolder(join(dir, `target-${file}`));
      const run = await runCli(['import', join(dir, file)], { DATA_DIR: targetDir });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
      const db = await openDatabase({ dataDir: targetDir, poolMax: 2 });
      try {
        const [{ n }] = await db.orm.em.fork().execute('select count(*)::int as n from users');
        expect(n).toBe(0);
      } finally {
        await db.close();
      }
    }
  }, 300_000);
  it('refuses an altered dump (an audit row erased, a user granted admin, the counts fixed) before writing anything; an old dump only with --allow-unverified', async () => {
    const sourceDir = join(dir, 'altered-source');
    const source = await embeddedApp(sourceDir);
    const session = client(source, undefined, { cookie: await login(source), 'x-csrf-protection': '1' });
    const agent = await session.post('/users', { type: 'agent', email: 'altered@test.example', name: 'Altered' });
    expect(agent.status).toBe(201);
    await source.close();
    const dump = join(dir, 'altered.ndjson');
    const exported = await runCli(['export', '--out', dump], { DATA_DIR: sourceDir });
    expect(exported.code, exported.stderr).toBe(0);
    const lines = (await readFile(dump, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const end = lines.at(-1);
    expect(end).toMatchObject({ kind: 'end', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(exported.stderr).toContain(`sha256 ${end.sha256}`);

    // The reviewer's alterations, each with the end line's counts made to agree.
    const recount = (edited: any[]) => {
      const counts: Record<string, number> = Object.fromEntries(Object.keys(end.counts).map((t) => [t, 0]));
      for (const l of edited) if (l.kind === 'row') counts[l.table]++;
      return edited.map((l) => (l.kind === 'end' ? { ...l, counts } : l));
    };
    const auditRow = lines.findIndex((l) => l.kind === 'row' && l.table === 'audit_log');
    const adminRole = lines.find((l) => l.kind === 'row' && l.table === 'roles' && l.row.system);
    const lastUserRole = lines.findLastIndex((l) => l.kind === 'row' && l.table === 'user_roles');
    expect([auditRow > 0, Boolean(adminRole), lastUserRole > 0]).toEqual([true, true, true]);
    const granted = recount([
      ...lines.slice(0, lastUserRole + 1),
      // in the shape the export writes (every column of the row, as an attacker copying one would)
      { kind: 'row', table: 'user_roles', row: { ...lines[lastUserRole].row, user_id: agent.body.id, role_id: adminRole.row.id } },
      ...lines.slice(lastUserRole + 1),
    ]);
    const cases: [string, any[], RegExp][] = [
      ['an audit row erased', recount(lines.filter((_, i) => i !== auditRow)), /digest in the end line does not match/],
      ['a user granted admin', granted, /digest in the end line does not match/],
      [
        'a row edited in place',
        lines.map((l, i) => (i === auditRow ? { ...l, row: { ...l.row, action: 'tampered' } } : l)),
        /digest in the end line does not match/,
      ],
      ['the digest removed', lines.map((l) => (l.kind === 'end' ? { kind: 'end', counts: l.counts } : l)), /no digest: the file was altered/],
      [
        'the header told it is version 1',
        lines.map((l) => (l.kind === 'header' ? { ...l, version: 1 } : l)),
        /before dumps carried a digest.*--allow-unverified/,
      ],
    ];
    const texts = (edited: any[]) =>
      (async function* () {
        let n = 0;
        for (const l of edited) yield { n: ++n, text: JSON.stringify(l) };
      })();

    const target = await createTestDatabase({ poolMax: 2 });
    try {
      const opts = { migrations: (await migrationStatus(target.orm)).applied };
      for (const [what, edited, message] of cases) {
        // the check that runs before the first write refuses it…
        await expect(checkDump(texts(edited), opts), what).rejects.toThrow(message);
        // …and the import itself refuses it too (the file may change between the two reads): its transaction writes nothing
        await expect(
          target.orm.em.fork().transactional((tx) => importRows(tx, texts(edited), opts)),
          what,
        ).rejects.toThrow(message);
        expect(await nonEmptyTables(target.orm.em.fork()), what).toEqual([]);
      }
      // A dump from before the digest (format version 1): read only when the operator accepts it, with a warning.
      const oldFormat = lines.map((l) => (l.kind === 'header' ? { ...l, version: 1 } : l.kind === 'end' ? { kind: 'end', counts: l.counts } : l));
      await expect(checkDump(texts(oldFormat), opts)).rejects.toThrow(/--allow-unverified/);
      let warnings = 0;
      expect(await checkDump(texts(oldFormat), { ...opts, allowUnverified: true, onUnverified: () => warnings++ })).toEqual({
        counts: end.counts,
        sha256: null,
      });
      expect(warnings).toBe(1);
      expect(await checkDump(texts(lines), opts)).toEqual({ counts: end.counts, sha256: end.sha256 });
      await writeFile(join(dir, 'old-format.ndjson'), `${oldFormat.map((l) => JSON.stringify(l)).join('\n')}\n`);
    } finally {
      await target.close();
    }

    // Through the CLI: a clear message, exit 1, nothing written; the old file with the flag, with its warning.
    await writeFile(join(dir, 'granted.ndjson'), `${granted.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const refused = await runCli(['import', join(dir, 'granted.ndjson')], { DATA_DIR: await migratedFolder(join(dir, 'target-granted')) });
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(/Import refused, nothing was written: the digest in the end line does not match the file: it was altered or damaged/);
    const db = await openDatabase({ dataDir: join(dir, 'target-granted'), poolMax: 2 });
    try {
      expect(await nonEmptyTables(db.orm.em.fork())).toEqual([]);
    } finally {
      await db.close();
    }
    const accepted = await runCli(['import', '--allow-unverified', join(dir, 'old-format.ndjson')], {
      DATA_DIR: await migratedFolder(join(dir, 'target-old')),
    });
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stderr).toMatch(/Warning: this dump was written before dumps carried a digest/);
    expect(JSON.parse(accepted.stdout)).toMatchObject({ sha256: null, imported: end.counts });
  }, 300_000);
});
