// Exports of a list (issue 36) through the real app: every page, the list's filters and order, CSV and
// NDJSON rows equal to what the list's API pages answer, bad parameters refused before a byte, the budget.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, systemCtx, unwrap } from '../../support/clients.js';
import { insertUser, newActor, newTension } from '../../support/tensions.js';
import { countTensionRows } from '../../../server/persistence/tension-projection.js';
import { authenticateApiKey } from '../../../server/auth/authenticate.js';
import { startExport } from '../../../server/application/export.js';
import { MAX_STREAMS_PER_USER } from '../../../server/application/events/stream-guard.js';
import { updateRole } from '../../../server/application/roles/roles.js';
import { revokeUserApiKey } from '../../../server/application/users/api-keys.js';

let app: TestApp;
let key: string;
let c: ReturnType<typeof client>;
let orgA: string;
let orgB: string;
let alice: string;
const TENSIONS = 230;

beforeAll(async () => {
  app = await startTestApp({ rateLimitPerMinute: 0 });
  const seeded = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*', 'users:read', 'audit:read'] });
  key = seeded.key;
  c = client(app, key);
  orgA = await newActor(c, 'Org A, "the first"');
  orgB = await newActor(c, 'Org B');
  alice = await insertUser(app, { name: 'Alice' });
  const names = (i: number) => [`plain ${i}`, `comma, quote " ${i}`, `line\nbreak ${i}`, `=SUM(A1) ${i}`, `tab\there ${i}`][i % 5];
  for (let i = 0; i < TENSIONS; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, TENSIONS - i) }, (_, j) =>
        newTension(c, { name: names(i + j), actorId: (i + j) % 3 ? orgA : orgB, score: 1 + ((i + j) % 10), ...((i + j) % 4 ? {} : { leadUserId: alice }) }),
      ),
    );
  }
});
afterAll(async () => {
  await app?.close();
});

/** Every page of a list through its API, as the admin app or a script would page it. */
async function allPages(path: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const res = await c.get(`${path}${path.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

/** A download through node:http, so that the trailer can be read too. */
function download(path: string): Promise<{ status: number; headers: Record<string, unknown>; text: string; trailers: Record<string, string | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${app.url}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text, trailers: res.trailers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** RFC 4180, as a spreadsheet reads it: quoted fields may hold commas, quotes (doubled) and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted && ch === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (quoted && ch === '"') {
      quoted = false;
    } else if (quoted) {
      field += ch;
    } else if (ch === '"') {
      quoted = true;
    } else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else {
      field += ch;
    }
  }
  expect(field).toBe(''); // the last line ends with CRLF
  return rows;
}

const ndjson = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('export of the tensions list', () => {
  const filter = 'state=alive&actorId=';

  it("CSV: one row per item of the list's pages for the same filter and order, in that order, every field as the API answers it", async () => {
    const query = `${filter}${orgA}&minScore=2&sort=name`;
    const api = await allPages(`/tensions?${query}`);
    expect(api.length).toBeGreaterThan(100); // more than one page of the export
    const res = await download(`/export/tensions?${query}&format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="tensions.csv"');
    const [header, ...rows] = parseCsv(res.text);
    expect(header).toEqual([
      'id',
      'name',
      'state',
      'score',
      'actorId',
      'actor.name',
      'actor.type',
      'leadUserId',
      'lead.name',
      'currentContext',
      'potentialFuture',
      'version',
      'createdAt',
      'updatedAt',
    ]);
    expect(rows.length).toBe(api.length);
    const col = (name: string) => header.indexOf(name);
    rows.forEach((r, i) => {
      const t = api[i] as { id: string; name: string; score: number; actor: { name: string }; lead: { name: string } | null; updatedAt: string };
      // a text a spreadsheet would run as a formula is kept as text by a leading tab, and only such a text
      const name = t.name.startsWith('=') ? `\t${t.name}` : t.name;
      expect([r[col('id')], r[col('name')], r[col('score')], r[col('actor.name')], r[col('lead.name')], r[col('updatedAt')]], `row ${i}`).toEqual([
        t.id,
        name,
        String(t.score),
        t.actor.name,
        t.lead?.name ?? '',
        t.updatedAt,
      ]);
    });
    expect(rows.some((r) => r[col('name')].includes('\n'))).toBe(true);
    expect(rows.some((r) => r[col('name')].includes('"'))).toBe(true);
  });

  it('NDJSON: each line is the item exactly as the list serves it', async () => {
    const api = await allPages(`/tensions?sort=-createdAt`);
    expect(api.length).toBe(TENSIONS);
    const res = await download('/export/tensions?sort=-createdAt&format=ndjson');
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(ndjson(res.text)).toEqual(api);
  });

  it('bad parameters are refused with 400 before a byte of the file is sent', async () => {
    for (const query of ['format=xml', 'limit=5', 'state=sleeping', 'minScore=11', 'cursor=not-ours', 'sort=colour', 'unknown=1']) {
      const res = await c.get(`/export/tensions?${query}`);
      expect([res.status, res.body.code], query).toEqual([400, 'validation_failed']);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    }
  });

  it('stops at its budget of rows, and its trailer names the cursor to resume from: both parts are the whole list', async () => {
    app.deps.exportMaxRows = 150;
    try {
      const first = await download('/export/tensions?sort=name&format=ndjson');
      expect(first.headers['x-export-max-rows']).toBe('150');
      const head = ndjson(first.text);
      expect(head.length).toBe(200); // whole pages: the budget is checked between pages
      const cursor = first.trailers['x-export-next-cursor'];
      expect(cursor).toBeTruthy();
      const rest = ndjson((await download(`/export/tensions?sort=name&format=ndjson&cursor=${encodeURIComponent(cursor!)}`)).text);
      expect([...head, ...rest]).toEqual(await allPages('/tensions?sort=name'));
      // the whole list within the budget: no trailer value
      app.deps.exportMaxRows = 1000;
      expect((await download('/export/tensions?sort=name&format=ndjson')).trailers['x-export-next-cursor']).toBeUndefined();
    } finally {
      app.deps.exportMaxRows = undefined;
    }
  });
});

describe('export of the other lists', () => {
  it('actors, users and the audit trail: NDJSON equals their pages, CSV has a row for each', async () => {
    for (const [list, path] of [
      ['actors', '/actors'],
      ['users', '/users?type=human'],
      ['audit', '/audit'],
    ] as const) {
      const api = await allPages(path);
      expect(api.length, list).toBeGreaterThan(0);
      const query = path.includes('?') ? `&${path.split('?')[1]}` : '';
      expect(ndjson((await download(`/export/${list}?format=ndjson${query}`)).text), list).toEqual(api);
      const csv = parseCsv((await download(`/export/${list}?format=csv${query}`)).text);
      expect(csv.length, list).toBe(api.length + 1);
      expect(csv.slice(1).map((r) => r[0])).toEqual(api.map((x) => x.id));
    }
    // an export needs the list's permission, and nothing more
    const reader = await seedUserWithKey(app, { type: 'agent', grants: ['actors:read'] });
    expect((await client(app, reader.key).get('/export/actors?format=csv')).status).toBe(200);
    const refused = await client(app, reader.key).get('/export/users');
    expect([refused.status, refused.body.missingPermission]).toEqual([403, 'users:read']);
  });
});

describe('a list total (tensionsTotal): exact up to a bound, counted with a LIMIT', () => {
  it('equals the number of items the pages hold for the same filters', async () => {
    const total = async (args: string) => {
      const res = await c.gql(`query { tensionsTotal${args} { count exact } }`);
      expect(res.body.errors).toBeUndefined();
      return res.body.data.tensionsTotal as { count: number; exact: boolean };
    };
    expect(await total('')).toEqual({ count: TENSIONS, exact: true });
    const filtered = await allPages(`/tensions?actorId=${orgA}&minScore=5`);
    expect(await total(`(actorId: "${orgA}", minScore: 5)`)).toEqual({ count: filtered.length, exact: true });
    expect(await total(`(q: "no such text anywhere")`)).toEqual({ count: 0, exact: true });
    expect((await c.gql(`query { tensionsTotal(minScore: 11) { count } }`)).body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });

  it('never counts more than the bound + 1 rows', async () => {
    expect((await countTensionRows(app.em(), {}, 50)).n).toBe(51);
    expect((await countTensionRows(app.em(), { leadUserId: alice }, 1000)).n).toBe((await allPages(`/tensions?leadUserId=${alice}`)).length);
  });
});

describe("an export follows its caller's rights, as a stream does (SPEC §10, §7)", () => {
  /** An export started as `key`'s holder, through the use case the REST route calls, its first page read. */
  async function started(k: string, query: Record<string, unknown> = {}) {
    const caller = unwrap(await authenticateApiKey(app.deps, k), 'authenticate');
    return startExport(app.deps, { caller, via: 'rest', requestId: 'export-rights' }, 'tensions', query);
  }
  /** The contract's 2 s, with room for a loaded machine: pass/fail is "ended at all", not how fast. */
  const ENDED_WITHIN_MS = 5_000;
  const abortedWithin = (signal: AbortSignal) =>
    new Promise<boolean>((resolve) => {
      if (signal.aborted) return resolve(true);
      const t = setTimeout(() => resolve(false), ENDED_WITHIN_MS);
      signal.addEventListener('abort', () => (clearTimeout(t), resolve(true)));
    });

  it('a key revoked after the first page gets no further page, and the run is told to stop', async () => {
    const holder = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read'] });
    const run = unwrap(await started(holder.key), 'start');
    try {
      expect(run.first.data).toHaveLength(100);
      const second = await run.next(run.first.nextCursor!);
      expect(second.ok).toBe(true);
      unwrap(await revokeUserApiKey(app.deps, systemCtx(), holder.userId, holder.keyId), 'revoke');
      const third = await run.next(second.ok ? second.value.nextCursor! : '');
      expect(third.ok ? 'a page' : third.code).toBe('unauthenticated');
      expect(await abortedWithin(run.revoked)).toBe(true);
    } finally {
      run.close();
    }
  });

  it("a permission removed from the holder's role ends it with forbidden", async () => {
    const holder = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read', 'actors:read'] });
    const run = unwrap(await started(holder.key), 'start');
    try {
      unwrap(await updateRole(app.deps, systemCtx(), holder.roleId, { permissions: ['actors:read'] }), 'role edit');
      const next = await run.next(run.first.nextCursor!);
      expect(next.ok ? 'a page' : [next.code, next.extensions?.missingPermission]).toEqual(['forbidden', 'tensions:read']);
      expect(await abortedWithin(run.revoked)).toBe(true);
    } finally {
      run.close();
    }
  });

  it("holds one of the user's open-stream slots while it runs; the REST export frees its slot when it ends", async () => {
    const holder = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read'] });
    // more exports than slots, one after another, through the route: each gives its slot back
    for (let i = 0; i <= MAX_STREAMS_PER_USER; i++) expect((await download2(holder.key, '/export/tensions?format=ndjson')).status).toBe(200);
    const runs = [];
    try {
      for (let i = 0; i < MAX_STREAMS_PER_USER; i++) runs.push(unwrap(await started(holder.key), `export ${i}`));
      const refused = await client(app, holder.key).get('/export/tensions');
      expect([refused.status, refused.body.code, refused.headers.get('retry-after')]).toEqual([429, 'rate_limited', '5']);
      runs.pop()!.close();
      expect((await download2(holder.key, '/export/tensions?format=csv')).status).toBe(200);
    } finally {
      for (const r of runs) r.close();
    }
  });
});

/** A whole download as `k`. */
async function download2(k: string, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${app.url}/api/v1${path}`, { headers: { authorization: `Bearer ${k}` } });
  return { status: res.status, text: await res.text() };
}
