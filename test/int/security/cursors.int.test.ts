// SPEC §7: list cursors are opaque and the server's own. For every list on every face, generated cursors —
// forged base64 JSON, keys the list never issues (even signed with the server's own key), tampered and
// cross-list cursors, random strings — are 400 `validation_failed` (GraphQL `VALIDATION_FAILED`, MCP error
// result `validation_failed`), never a 5xx; a genuine cursor still pages through every list exactly once.
// Seed printed; FUZZ_SEED replays a run, FUZZ_RUNS sets the runs per list and face.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { login, sessionClient } from '../../support/sessions.js';
import { rpc } from '../../support/raw-http.js';
import { encodeCursor, type ListName } from '../../../server/application/paging.js';

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SORTS = ['score', '-score', 'updatedAt', '-updatedAt', 'createdAt', '-createdAt', 'name', '-name'] as const;

let app: TestApp;
let admin: SeededUser;
let sessionToken: string;
let tensionId: string;
let agentId: string;

type Face = 'rest' | 'graphql' | 'mcp';
interface Answer {
  status: number;
  text: string;
  /** the contract code of a refusal, as the face spells it */
  code: string | null;
  ids: string[] | null;
  nextCursor: string | null;
}
interface Target {
  list: ListName;
  face: Face;
  call(cursor: string | undefined, opts?: { sort?: string; limit?: number }): Promise<Answer>;
}

function rest(list: ListName, path: () => string, session = false): Target {
  return {
    list,
    face: 'rest',
    async call(cursor, opts = {}) {
      const q = new URLSearchParams();
      if (cursor !== undefined) q.set('cursor', cursor);
      if (opts.sort) q.set('sort', opts.sort);
      if (opts.limit) q.set('limit', String(opts.limit));
      const c = session ? sessionClient(app, sessionToken) : client(app, admin.key);
      const res = await c.get(`${path()}?${q}`);
      const body = res.body;
      return {
        status: res.status,
        text: typeof body === 'string' ? body : JSON.stringify(body),
        code: res.status >= 400 ? (body?.code ?? null) : null,
        ids: Array.isArray(body?.data) ? body.data.map((r: { id?: string; version?: number }) => String(r.id ?? r.version)) : null,
        nextCursor: body?.nextCursor ?? null,
      };
    },
  };
}

function graphql(list: ListName, field: string, args: string, vars: () => Record<string, unknown>, item = 'id', session = false): Target {
  return {
    list,
    face: 'graphql',
    async call(cursor, opts = {}) {
      const extra = list === 'tensions' ? ', $sort: TensionSort' : '';
      const doc = `query($cursor: String, $limit: Int${extra}${args ? `, ${args}` : ''}) { ${field}(cursor: $cursor, limit: $limit${extra ? ', sort: $sort' : ''}${
        args ? `, ${args.replace(/\$(\w+): \w+!?/g, '$1: $$$1')}` : ''
      }) { data { ${item} } nextCursor } }`;
      const c = session ? sessionClient(app, sessionToken) : client(app, admin.key);
      // GraphQL's sort enum spells REST's `-score` as `score_desc`
      const sort = opts.sort?.startsWith('-') ? `${opts.sort.slice(1)}_desc` : opts.sort;
      const res = await c.gql(doc, { cursor, limit: opts.limit, sort, ...vars() });
      const page = res.body?.data?.[field];
      return {
        status: res.status,
        text: JSON.stringify(res.body),
        code: res.body?.errors?.[0]?.extensions?.code ?? null,
        ids: page ? page.data.map((r: Record<string, unknown>) => String(r[item])) : null,
        nextCursor: page?.nextCursor ?? null,
      };
    },
  };
}

function mcp(list: ListName, tool: string, args: () => Record<string, unknown>, item = 'id'): Target {
  return {
    list,
    face: 'mcp',
    async call(cursor, opts = {}) {
      const res = await rpc(app, admin.key, 'tools/call', { name: tool, arguments: { ...args(), ...(cursor !== undefined ? { cursor } : {}), ...opts } });
      const result = res.json?.result;
      const content = result?.structuredContent;
      return {
        status: res.status,
        text: res.text,
        code: result?.isError ? (content?.code ?? null) : res.json?.error ? `jsonrpc:${res.json.error.code}` : null,
        ids: !result?.isError && Array.isArray(content?.data) ? content.data.map((r: Record<string, unknown>) => String(r[item])) : null,
        nextCursor: content?.nextCursor ?? null,
      };
    },
  };
}

const TARGETS: Target[] = [
  rest('tensions', () => '/tensions'),
  rest('tensionHistory', () => `/tensions/${tensionId}/history`),
  rest('actors', () => '/actors'),
  rest('users', () => '/users'),
  rest('roles', () => '/roles'),
  rest('apiKeys', () => `/users/${agentId}/api-keys`),
  rest('apiKeys', () => '/me/api-keys', true),
  rest('audit', () => '/audit'),
  graphql('tensions', 'tensions', '', () => ({})),
  graphql('tensionHistory', 'tensionHistory', '$id: ID!', () => ({ id: tensionId }), 'version'),
  graphql('actors', 'actors', '', () => ({})),
  graphql('users', 'users', '', () => ({})),
  graphql('roles', 'roles', '', () => ({})),
  graphql('apiKeys', 'userApiKeys', '$userId: ID!', () => ({ userId: agentId })),
  graphql('apiKeys', 'myApiKeys', '', () => ({}), 'id', true),
  graphql('audit', 'auditLog', '', () => ({})),
  mcp('tensions', 'list_tensions', () => ({})),
  mcp('tensionHistory', 'get_tension_history', () => ({ id: tensionId }), 'version'),
  mcp('actors', 'list_actors', () => ({})),
];
const label = (t: Target, i = TARGETS.indexOf(t)) => `${t.face} ${t.list}#${i}`;

/** The refusal every face must give a cursor the server did not issue for that list. */
function expectRefused(t: Target, a: Answer, cursor: string) {
  const why = `${label(t)} cursor ${JSON.stringify(cursor).slice(0, 120)} → ${a.status} ${a.text.slice(0, 300)}`;
  expect(a.status, why).toBeLessThan(500);
  if (t.face === 'rest') expect([a.status, a.code], why).toEqual([400, 'validation_failed']);
  if (t.face === 'graphql') expect(a.code, why).toBe('VALIDATION_FAILED');
  if (t.face === 'mcp') expect([a.status, a.code], why).toEqual([200, 'validation_failed']);
  expect(a.text, why).not.toMatch(/\bselect\b|\bwhere\b|syntax|invalid input|out of range|postgres/i);
}

// ---- generated cursors ---------------------------------------------------------------------------

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined'), 'utf8').toString('base64url');
const signWith = (secret: string, list: string, payload: string) =>
  createHmac('sha256', createHmac('sha256', secret).update('market-service list cursor v1').digest())
    .update(`${list}\n${payload}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url');

/** Values the first report named, and their kin: never a valid sort key for any slot they land in. */
const NAMED = [
  'abc',
  '99999999999',
  '\u0000',
  'a\u0000b',
  'not-a-date',
  '2026-13-45T00:00:00Z',
  '2026-02-30 10:00:00+00',
  '2025-02-29T00:00:00Z',
  '0000-01-01 00:00:00+00',
  '10000-01-01T00:00:00Z',
  '2026-11-23T24:00:00Z',
  '2026-11-23 10:00:00+16',
  '\uD800',
  "'; drop table tensions; --",
  'x'.repeat(1001),
];
/** A name sort's value is any text PostgreSQL takes: signed with the server's key, that is a valid cursor, not a malformed one. */
const isNameText = (sortBy: string | undefined, v: unknown) =>
  // NUL is exactly the character PostgreSQL text refuses
  Boolean(sortBy?.endsWith('name')) && typeof v === 'string' && !v.includes('\u0000') && !/[\uD800-\uDFFF]/.test(v) && v.length <= 1000;
const badScalar = fc.oneof(
  fc.constantFrom(...NAMED),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant({}),
  fc.constant([]),
);
const uuid = fc.uuid();
const sort = fc.constantFrom(...SORTS);
const validInstant = fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());

/** A key of the list's own shape with one slot wrong, or a shape the list never issues. */
const malformedKey: Record<ListName, fc.Arbitrary<{ key: unknown; sort?: string }>> = {
  tensions: fc
    .oneof(
      // (a generated string of digits is a real score: `v: "6"` under a score sort is a valid key, not a malformed one)
      fc
        .record({ s: sort, v: badScalar, id: uuid })
        .filter(({ s, v }) => !isNameText(s, v) && !(s.endsWith('score') && typeof v === 'string' && /^\s*[-+]?\d+\s*$/.test(v))),
      fc.record({ s: sort, v: fc.constantFrom('5', '2026-11-23 10:00:00+00', 'Alpha'), id: badScalar }),
      fc.record({ s: sort, v: fc.constant('5'), id: uuid, extra: badScalar }),
      fc.record({ v: fc.constant('5'), id: uuid }),
    )
    .map((key) => ({ key, sort: (key as { s?: string }).s ?? '-score' })),
  tensionHistory: fc
    .oneof(
      fc.record({
        before: fc.oneof(
          fc.constantFrom(99999999999, 0, -1, 1.5, 2 ** 31, '3'),
          fc.integer({ max: 0 }),
          fc.integer({ min: 0, max: 2 ** 30 }).map((n) => n * 4 + 2 ** 31),
          badScalar.filter((v) => !Number.isInteger(v) || (v as number) < 1),
        ),
      }),
      fc.record({ before: fc.constant(2), extra: badScalar }),
    )
    .map((key) => ({ key })),
  actors: fc
    .oneof(
      fc.record({ n: badScalar.filter((v) => typeof v !== 'string' || v.includes('\u0000') || v.length > 1000 || /[\uD800-\uDFFF]/.test(v)), id: uuid }),
      fc.record({ n: fc.constant('acme'), id: badScalar }),
    )
    .map((key) => ({ key })),
  users: fc
    .oneof(fc.tuple(badScalar, uuid), fc.tuple(validInstant, badScalar), fc.tuple(validInstant), fc.tuple(validInstant, uuid, uuid), fc.constant({}))
    .map((key) => ({ key })),
  roles: fc
    .oneof(
      fc.tuple(badScalar.filter((v) => typeof v !== 'string' || v.includes('\u0000') || v.length > 1000 || /[\uD800-\uDFFF]/.test(v))),
      fc.constant([]),
      fc.tuple(fc.constant('a'), fc.constant('b')),
      fc.constant({ code: 'a' }),
    )
    .map((key) => ({ key })),
  apiKeys: fc.oneof(fc.tuple(badScalar, uuid), fc.tuple(validInstant, badScalar), fc.tuple(validInstant), fc.constant('2026-01-01')).map((key) => ({ key })),
  audit: fc
    .oneof(fc.tuple(badScalar, uuid), fc.tuple(validInstant, badScalar), fc.tuple(validInstant), fc.tuple(validInstant, uuid, uuid), fc.constant({}))
    .map((key) => ({ key })),
  webhooks: fc.oneof(fc.tuple(badScalar, uuid), fc.tuple(validInstant, badScalar), fc.tuple(validInstant), fc.constant({})).map((key) => ({ key })),
  webhookDeliveries: fc
    .oneof(
      fc.tuple(badScalar, fc.nat()),
      fc.tuple(
        validInstant,
        badScalar.filter((v) => !Number.isSafeInteger(v) || (v as number) < 0),
      ),
      fc.tuple(validInstant),
      fc.constant({}),
    )
    .map((key) => ({ key })),
  // the feed's `after` cursor has its own fuzz (test/int/events/feed.int.test.ts)
  events: fc.oneof(fc.record({ t: badScalar, p: fc.nat() }), fc.record({ t: fc.constant('1'), p: badScalar })).map((key) => ({ key })),
};

const OTHER_LISTS: ListName[] = ['tensions', 'tensionHistory', 'actors', 'users', 'roles', 'apiKeys', 'audit'];
const genuine = new Map<ListName, string>();

function cursors(list: ListName): fc.Arbitrary<{ cursor: string; sort?: string; kind: string }> {
  const anyKey = fc.oneof(
    malformedKey[list].map((m) => m.key),
    fc.jsonValue(),
  );
  const g = () => genuine.get(list)!;
  return fc
    .oneof(
      // the server's own key, values the list never issues: only the strict schema stands between them and SQL
      malformedKey[list].map(({ key, sort }) => ({ cursor: encodeCursor(app.deps, list, key), sort, kind: 'signed-malformed' })),
      // forged: bare base64 JSON, a made-up signature, another secret's signature, another list's signature
      malformedKey[list].map(({ key, sort }) => ({ cursor: b64(key), sort, kind: 'unsigned' })),
      fc
        .tuple(anyKey, fc.base64String({ minLength: 4, maxLength: 44 }))
        .map(([key, sig]) => ({ cursor: `${b64(key)}.${sig.replace(/=/g, '')}`, kind: 'made-up-signature' })),
      fc
        .tuple(anyKey, fc.string({ minLength: 32, maxLength: 40 }))
        .map(([key, secret]) => ({ cursor: `${b64(key)}.${signWith(secret, list, b64(key))}`, kind: 'other-secret' })),
      fc.constantFrom(...OTHER_LISTS.filter((l) => l !== list)).map((other) => ({ cursor: genuine.get(other)!, kind: `genuine-${other}` })),
      // tampered genuine cursors: one character changed, cut short, extended
      fc.nat().chain((i) =>
        fc.constantFrom('A', 'B', '_', '-', '.', 'z').map((ch) => {
          const c = g();
          const at = i % c.length;
          return {
            cursor: c[at] === ch ? c.slice(0, at) + (ch === 'A' ? 'B' : 'A') + c.slice(at + 1) : c.slice(0, at) + ch + c.slice(at + 1),
            kind: 'tampered',
          };
        }),
      ),
      fc.nat().map((i) => ({ cursor: g().slice(0, 1 + (i % (g().length - 1))), kind: 'truncated' })),
      fc.string({ minLength: 1, maxLength: 8 }).map((s) => ({ cursor: g() + s, kind: 'extended' })),
      // random strings, and random strings that look like cursors
      fc.string({ minLength: 1, maxLength: 300, unit: 'binary' }).map((cursor) => ({ cursor, kind: 'random' })),
      fc
        .tuple(fc.base64String({ minLength: 4, maxLength: 200 }), fc.base64String({ minLength: 0, maxLength: 30 }))
        .map(([a, b]) => ({ cursor: `${a}.${b}`.replace(/=/g, ''), kind: 'random-b64' })),
      fc.string({ minLength: 2049, maxLength: 2100 }).map((cursor) => ({ cursor, kind: 'too-long' })),
    )
    .filter(({ cursor }) => cursor.length > 0 && cursor !== genuine.get(list));
}

beforeAll(async () => {
  app = await startTestApp();
  admin = await seedUserWithKey(app, { grants: ['*'] });
  const c = client(app, admin.key);
  const session = await login(app, ADMIN.email, ADMIN.password);
  sessionToken = session.token!;
  const s = sessionClient(app, sessionToken);
  const created = (res: { status: number; body: any }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  // Enough rows for several pages everywhere, with names that stress the text keys.
  const actors = [];
  for (const name of ['Zeta "quoted" \\ actor', 'alpha ünïcødé 🚀', 'Mid actor', 'mid actor'])
    actors.push(created(await c.post('/actors', { name, type: 'organization' })).id);
  const scores = [5, 5, 8, 1, 10];
  for (const [i, score] of scores.entries()) {
    const t = created(
      await c.post('/tensions', { name: ['Ω tension', 'a "b" \\ c', 'Same', 'Same', 'zz 🚀'][i], actorId: actors[i % actors.length], score }),
    ).tension;
    tensionId ??= t.id;
  }
  for (const name of ['Renamed once', 'Renamed twice', 'Renamed thrice']) expect((await c.post(`/tensions/${tensionId}/rename`, { name })).status).toBe(200);
  for (const n of [1, 2]) created(await c.post('/users', { type: 'agent', email: `pager-${n}@test.example`, name: `Pager ${n}` }));
  agentId = created(await c.post('/users', { type: 'agent', email: 'keyed@test.example', name: 'Keyed agent' })).id;
  for (const n of [1, 2, 3]) created(await c.post(`/users/${agentId}/api-keys`, { name: `agent key ${n}` }));
  for (const n of [1, 2, 3]) created(await c.post('/roles', { code: `pager-${n}`, name: `Pager ${n}`, permissions: ['tensions:read'] }));
  for (const n of [1, 2, 3]) created(await s.post('/me/api-keys', { name: `my key ${n}` }));
  for (const t of TARGETS.filter((t) => t.face === 'rest')) {
    const first = await t.call(undefined, { limit: 1 });
    expect(first.nextCursor, label(t)).toBeTruthy();
    genuine.set(t.list, first.nextCursor!);
  }
  console.log(`cursor fuzz: seed ${SEED} (replay with FUZZ_SEED=${SEED}), ${RUNS} runs per list and face`);
});
afterAll(async () => {
  await app?.close();
});

describe('list cursors', () => {
  it('a genuine cursor pages through every list on every face: each row once, in the order of one big page', async () => {
    const walk = async (t: Target, sortBy?: string) => {
      const all = await t.call(undefined, { limit: 100, sort: sortBy });
      expect(all.ids, `${label(t)} ${all.text.slice(0, 300)}`).not.toBeNull();
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 50; i++) {
        const page = await t.call(cursor, { limit: 2, sort: sortBy });
        expect(page.ids, `${label(t)} ${page.text.slice(0, 300)}`).not.toBeNull();
        seen.push(...page.ids!);
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      expect(seen, `${label(t)} sort ${sortBy}`).toEqual(all.ids);
      expect(all.ids!.length, label(t)).toBeGreaterThanOrEqual(3);
    };
    for (const t of TARGETS) {
      if (t.list === 'tensions') for (const s of SORTS) await walk(t, s);
      else await walk(t);
    }
  });

  it('a cursor issued on one face pages on the others (one codec)', async () => {
    for (const list of ['tensions', 'tensionHistory', 'actors'] as const) {
      const [restT, ...others] = TARGETS.filter((t) => t.list === list && !(t.face === 'rest' && t !== TARGETS.find((x) => x.list === list)));
      const cursor = (await restT.call(undefined, { limit: 1 })).nextCursor!;
      const expected = (await restT.call(cursor, { limit: 1 })).ids;
      for (const t of others) expect((await t.call(cursor, { limit: 1 })).ids, label(t)).toEqual(expected);
    }
  });

  it('refuses the first report\'s forged cursors (v: "abc", "99999999999", NUL, non-dates, out-of-range dates) on every list and face', async () => {
    for (const t of TARGETS) {
      for (const v of NAMED) {
        const keys: [unknown, string?][] =
          t.list === 'tensions'
            ? (['-score', 'createdAt', '-updatedAt', 'name'] as const).map((s) => [{ s, v, id: '00000000-0000-4000-8000-000000000000' }, s])
            : t.list === 'tensionHistory'
              ? [[{ before: v }], [{ before: 99999999999 }]]
              : t.list === 'actors'
                ? [[{ n: v, id: v }]]
                : t.list === 'roles'
                  ? [[[v, v]], [{ code: v }]]
                  : [[[v, '00000000-0000-4000-8000-000000000000']]];
        for (const [key, sortBy] of keys) {
          // Signed with the server's key, a name sort's value is any text: only text PostgreSQL refuses is malformed there.
          const forged = isNameText(sortBy, v) ? [b64(key)] : [b64(key), encodeCursor(app.deps, t.list, key)];
          for (const cursor of forged) expectRefused(t, await t.call(cursor, { sort: sortBy }), cursor);
        }
      }
    }
  }, 120_000);

  it('refuses every generated cursor the server did not issue for that list, on every face, never with a 5xx', async () => {
    const kinds = new Map<string, number>();
    for (const [i, t] of TARGETS.entries()) {
      await fc.assert(
        fc.asyncProperty(cursors(t.list), async ({ cursor, sort: sortBy, kind }) => {
          kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
          expectRefused(t, await t.call(cursor, { sort: sortBy }), cursor);
        }),
        { seed: SEED + i, numRuns: RUNS, endOnFailure: true },
      );
    }
    console.log(
      `cursor fuzz: ${[...kinds.values()].reduce((a, b) => a + b, 0)} cursors refused over ${TARGETS.length} list faces, by kind ${JSON.stringify(Object.fromEntries(kinds))}`,
    );
  }, 120_000);
});
