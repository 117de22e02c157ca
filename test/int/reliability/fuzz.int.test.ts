// Generated hostile input over every REST route, GraphQL field and MCP tool: malformed, oversized, wrongly
// typed, unicode-heavy and injection-like. Always a 4xx problem (or a coded GraphQL/MCP error), never a
// 5xx, and a refused input writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { assertProperty } from '../../support/fuzz.js';
import { FIELD_ERROR_CODES, REFUSAL_CODES as ALL_REFUSAL_CODES } from '../../../server/domain/errors.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { fillPath, OPERATION_SURFACES, type OperationSurface } from '../../support/operations.js';
import type { Operation } from '../../../server/application/permission-table.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 9);
const figures = { requests: 0, inputs: 0, fiveHundreds: 0, refused: 0, fieldErrors: 0 };

let app: TestApp;
let admin: SeededUser;
const ids = { tension: '', actor: '', user: '', role: '' };

// ---- generators ------------------------------------------------------------------------------------

const INJECTIONS = [
  "'; drop table tensions; --",
  "' or '1'='1",
  '{"$gt":""}',
  '__proto__',
  'constructor',
  'prototype',
  '$where',
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '%00',
  '\u0000',
  'null',
  'undefined',
  'NaN',
  '-1',
  '1e309',
  '0x41',
  '\u202Egnp.exe\u202C',
  '\u200B\u200C\u200D\u2060\uFEFF',
  '\uD800',
  '\uDFFF',
  '\uDBFF\uDFFF',
  'مرحبا بالعالم',
  'ﷺ'.repeat(50),
  '👩‍👩‍👧‍👦'.repeat(60),
  '😀'.repeat(201),
  'a'.repeat(201),
  'x'.repeat(10_001),
  ' \t\n ',
  '',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
];
const weirdUnits = fc.constantFrom('\u200B', '\u202E', '\u202D', '\uD83D', '\uDE00', '😀', 'ع', 'ה', '\u0000', '\u0301', 'a', "'", '"', '\\', '\uFFFF');
const hostileString = fc.oneof(
  fc.constantFrom(...INJECTIONS),
  fc.string({ unit: weirdUnits, maxLength: 260 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  fc.integer(),
  fc.constantFrom(0, -1, 11, 2 ** 31, -(2 ** 53), 1.5, 1e308),
  fc.boolean(),
  fc.constant(null),
  fc.constant({ $gt: '' }),
  fc.constant({ $ne: null }),
  fc.constant(['a', 'b']),
  fc.jsonValue({ maxDepth: 3 }),
);

/** A well-shaped body with some fields replaced or added, or no object at all. */
function hostileBody(base: Record<string, unknown>): fc.Arbitrary<string> {
  const keys = [...Object.keys(base), 'name', 'actorId', 'score', 'expectedVersion', 'roleIds', 'permissions', 'type', 'email'];
  const mutated = fc
    .record({
      replace: fc.dictionary(fc.constantFrom(...keys), hostileValue, { maxKeys: 3 }),
      extra: fc.dictionary(fc.string({ maxLength: 12 }), hostileValue, { maxKeys: 2 }),
    })
    .map(({ replace, extra }) => JSON.stringify({ ...base, ...extra, ...replace }))
    // the raw text keeps keys a JS object literal would eat
    .chain((text) => fc.constantFrom(text, text.replace(/^\{/, '{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"x":1}},')));
  const notAnObject = fc.oneof(
    hostileValue.map((v) => JSON.stringify(v) ?? 'null'),
    fc.constant(`[${'['.repeat(5000)}`),
    fc.constant('{"a":'.repeat(3000)),
  );
  return fc.oneof({ weight: 4, arbitrary: mutated }, notAnObject);
}

/** Percent-encodes a path segment; lone surrogates become the invalid UTF-8 bytes a raw client would send. */
function encodeSegment(segment: string): string {
  try {
    return encodeURIComponent(segment) || '%20';
  } catch {
    return segment.replace(/[\uD800-\uDFFF]/g, '%ED%A0%80').replace(/[^\w%-]/g, (c) => {
      try {
        return encodeURIComponent(c);
      } catch {
        return '%ED%A0%80';
      }
    });
  }
}

const hostileQuery = fc
  .dictionary(
    fc.constantFrom(
      'limit',
      'cursor',
      'state',
      'actorId',
      'leadUserId',
      'q',
      'minScore',
      'sort',
      'expectedVersion',
      'type',
      'status',
      'x[$gt]',
      '__proto__[a]',
      'limit[]',
    ),
    hostileString,
    { maxKeys: 4 },
  )
  .map((d) =>
    Object.entries(d)
      .map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`)
      .join('&'),
  );

// ---- helpers -------------------------------------------------------------------------------------------

async function counts(): Promise<Record<string, number>> {
  const [row] = await app.em().execute(
    `select (select count(*) from domain_events)::int as events, (select count(*) from tensions)::int as tensions,
            (select count(*) from users)::int as users, (select count(*) from roles)::int as roles,
            (select count(*) from api_keys)::int as api_keys`,
  );
  return row;
}

function sent(status: number) {
  figures.requests++;
  figures.inputs++;
  if (status >= 500) figures.fiveHundreds++;
  if (status >= 400) figures.refused++;
}

async function send(method: string, path: string, body: string | undefined, headers: Record<string, string> = {}) {
  const res = await fetch(`${app.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${admin.key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body,
  });
  sent(res.status);
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // checked by the caller
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, json };
}

/** Runs `attempt`; a refused attempt must leave every counted table as it was. */
async function writesNothingUnlessAccepted(attempt: () => Promise<{ accepted: boolean; describe: string }>) {
  const before = await counts();
  const { accepted, describe } = await attempt();
  if (!accepted) expect(await counts(), `refused but wrote: ${describe}`).toEqual(before);
}

/** SPEC §7: every item of `errors` has a stable `code` of the vocabulary and an object of `params`. */
function expectCodedFieldErrors(errors: unknown, what: string) {
  if (errors === undefined) return;
  expect(Array.isArray(errors), `${what}: errors is not a list`).toBe(true);
  for (const item of errors as { code?: unknown; params?: unknown }[]) {
    figures.fieldErrors++;
    expect(FIELD_ERROR_CODES, `${what}: ${JSON.stringify(item)}`).toContain(item.code);
    expect(item.params !== null && typeof item.params === 'object' && !Array.isArray(item.params), `${what}: params of ${JSON.stringify(item)}`).toBe(true);
  }
}

function expectProblem(res: { status: number; contentType: string; json: any; text: string }, what: string) {
  expect(res.status, `${what} → ${res.text.slice(0, 300)}`).toBeLessThan(500);
  // 431: Node's HTTP parser refuses a request line and headers over 16 KiB before the app sees them.
  if (res.status >= 400 && res.status !== 431) {
    expect(res.contentType, what).toMatch(/application\/problem\+json/);
    expect(res.json?.code, what).toEqual(expect.any(String));
    expect(res.json?.status).toBe(res.status);
    expectCodedFieldErrors(res.json?.errors, what);
  }
}

const restTargets = (Object.entries(OPERATION_SURFACES) as [Operation, OperationSurface][]).filter(([, s]) => s.rest);

function realPath(path: string): string {
  const id = path.startsWith('/tensions') ? ids.tension : path.startsWith('/actors') ? ids.actor : path.startsWith('/users') ? ids.user : ids.role;
  return fillPath(path, { id });
}

beforeAll(async () => {
  app = await startTestApp();
  admin = await seedUserWithKey(app, { grants: ['*'] });
  const api = client(app, admin.key);
  ids.actor = (await api.post('/actors', { name: 'Fuzz Org', type: 'organization' })).body.id;
  ids.tension = (await api.post('/tensions', { name: 'Fuzz target', actorId: ids.actor })).body.tension.id;
  ids.user = (await api.post('/users', { type: 'agent', email: 'fuzz-target@test.example', name: 'Fuzz target' })).body.id;
  ids.role = (await api.post('/roles', { code: 'fuzz-target', name: 'Fuzz target', permissions: ['tensions:read'] })).body.id;
  expect(Object.values(ids).every(Boolean)).toBe(true);
});
afterAll(async () => {
  console.log(
    `fuzz: ${figures.inputs} inputs tried, ${figures.requests} requests sent, ${figures.refused} refused, 5xx seen: ${figures.fiveHundreds}, field errors checked for code and params: ${figures.fieldErrors}`,
  );
  await app?.close();
});

describe('inputs the generators once found to crash the service, kept as fixed cases', () => {
  it('NUL and unpaired surrogates in strings, undecodable path segments, role edits', async () => {
    for (const [method, path, body] of [
      ['POST', '/api/v1/tensions', JSON.stringify({ name: 'a\u0000b', actorId: 'x' }).replace('x', ids.actor)],
      ['POST', '/api/v1/actors', '{"name":"\\ud800","type":"organization"}'],
      ['PATCH', `/api/v1/users/${ids.user}`, '{"name":"\\u0000"}'],
      ['POST', `/api/v1/users/${ids.user}/api-keys`, '{"name":"\\udfff"}'],
      ['GET', '/api/v1/tensions/%ED%A0%80', undefined],
      ['POST', '/api/v1/tensions/%ED%A0%80/rename', '{"name":"x"}'],
    ] as const) {
      await writesNothingUnlessAccepted(async () => {
        const res = await send(method, path, body);
        expectProblem(res, `${method} ${path} ${body}`);
        expect(res.status, `${method} ${path} ${body}`).toBeGreaterThanOrEqual(400);
        return { accepted: false, describe: `${method} ${path}` };
      });
    }
    // these are valid and must simply work
    const roles = await send('PUT', `/api/v1/users/${ids.user}/roles`, '{"roleIds":[]}');
    expect(roles.status, roles.text).toBe(200);
    const role = await send('PATCH', `/api/v1/roles/${ids.role}`, '{"name":"Renamed by fuzz"}');
    expect(role.status, role.text).toBe(200);
  });
});

describe('REST', () => {
  it.each(restTargets.filter(([, s]) => s.rest!.body))('%s: hostile JSON bodies', async (_op, surface) => {
    const { method, path, body } = surface.rest!;
    await assertProperty(
      fc.asyncProperty(hostileBody(body!), async (text) => {
        await writesNothingUnlessAccepted(async () => {
          const res = await send(method, `/api/v1${realPath(path)}`, text);
          expectProblem(res, `${method} ${path} ${text.slice(0, 200)}`);
          return { accepted: res.status < 400, describe: `${method} ${path} ${text.slice(0, 200)}` };
        });
      }),
      { numRuns: RUNS },
    );
  });

  it.each(restTargets)('%s: hostile path ids and query strings', async (_op, surface) => {
    const { method, path, body } = surface.rest!;
    await assertProperty(
      fc.asyncProperty(hostileString, hostileQuery, async (segment, query) => {
        const p = path.includes(':') ? path.replace(/:(keyId|id)/g, () => encodeSegment(segment)) : realPath(path);
        await writesNothingUnlessAccepted(async () => {
          const res = await send(method, `/api/v1${p}?${query}`, body ? JSON.stringify(body) : undefined);
          expectProblem(res, `${method} ${p}?${query}`);
          return { accepted: res.status < 400, describe: `${method} ${p}?${query}` };
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('malformed, oversized and wrongly typed bodies on every body route, and login', async () => {
    const bodyRoutes = [...restTargets.filter(([, s]) => s.rest!.body).map(([, s]) => s.rest!), { method: 'POST', path: '/auth/login' }];
    const raw = fc.record({
      route: fc.constantFrom(...bodyRoutes),
      contentType: fc.constantFrom(
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=utf-16',
        'application/xml',
        'application/merge-patch+json',
      ),
      body: fc.oneof(
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.constantFrom('{', '{"name":', '{"name":"x",}', "{'name':'x'}", 'name=x&actorId=y', '\uFEFF{"name":"x"}', '{"name":"\\ud800"}', '{"name":"\\u0000"}'),
        fc.constant(JSON.stringify({ name: 'x'.repeat(102_400) })),
        fc.constant(`{"name":"${'é'.repeat(60_000)}"}`),
      ),
    });
    await assertProperty(
      fc.asyncProperty(raw, async ({ route, contentType, body }) => {
        await writesNothingUnlessAccepted(async () => {
          const res = await send(route.method, `/api/v1${realPath(route.path)}`, body, { 'content-type': contentType });
          expectProblem(res, `${route.method} ${route.path} (${contentType}) ${body.slice(0, 120)}`);
          return { accepted: res.status < 400, describe: `${route.path} ${body.slice(0, 120)}` };
        });
      }),
      { numRuns: RUNS * 8 },
    );
    // The two limits named by the contract, deterministically.
    const big = await send('POST', '/api/v1/tensions', JSON.stringify({ name: 'x', actorId: ids.actor, currentContext: 'x'.repeat(102_400) }));
    expect([big.status, big.json.code]).toEqual([413, 'payload_too_large']);
    const text = await send('POST', '/api/v1/tensions', 'name=x', { 'content-type': 'text/plain' });
    expect([text.status, text.json.code]).toEqual([415, 'unsupported_media_type']);
  });
});

describe('GraphQL', () => {
  const targets = (Object.entries(OPERATION_SURFACES) as [Operation, OperationSurface][]).filter(
    ([, s]) => s.graphql && Object.keys(s.graphql.variables).length,
  );

  /** Replaces variable leaves with hostile values (wrong types included). */
  const hostileVariables = (variables: Record<string, unknown>) => {
    const leaves: string[][] = [];
    const walk = (v: unknown, path: string[]) => {
      if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
      else leaves.push(path);
    };
    walk(variables, []);
    return fc.array(fc.tuple(fc.constantFrom(...leaves), hostileValue), { minLength: 1, maxLength: 3 }).map((changes) => {
      const copy = structuredClone(variables) as Record<string, any>;
      for (const [path, value] of changes) {
        let o = copy;
        for (const k of path.slice(0, -1)) o = o[k];
        o[path[path.length - 1]] = value;
      }
      return copy;
    });
  };

  async function post(body: string) {
    const res = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
      body,
    });
    sent(res.status);
    const text = await res.text();
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      // asserted below
    }
    return { status: res.status, text, json };
  }

  function expectCodedErrors(res: { status: number; text: string; json: any }, what: string) {
    expect(res.status, `${what} → ${res.text.slice(0, 300)}`).toBeLessThan(500);
    expect(res.json, what).not.toBeNull();
    for (const e of res.json.errors ?? []) {
      expect(e.extensions?.code, `${what}: ${e.message}`).toEqual(expect.any(String));
      expect(e.extensions.code).not.toBe('INTERNAL');
      expectCodedFieldErrors(e.extensions.errors, what);
    }
  }

  it.each(targets)('%s: hostile variables', async (_op, surface) => {
    const g = surface.graphql!;
    const real = structuredClone(g.variables);
    if ('id' in real)
      real.id =
        g.field.includes('Tension') || g.field.startsWith('tension')
          ? ids.tension
          : g.field.toLowerCase().includes('actor')
            ? ids.actor
            : g.field.toLowerCase().includes('role')
              ? ids.role
              : ids.user;
    await assertProperty(
      fc.asyncProperty(hostileVariables(real), async (variables) => {
        await writesNothingUnlessAccepted(async () => {
          const res = await post(JSON.stringify({ query: g.document, variables }));
          expectCodedErrors(res, `${g.field} ${JSON.stringify(variables).slice(0, 200)}`);
          return { accepted: !res.json?.errors?.length, describe: `${g.field} ${JSON.stringify(variables).slice(0, 200)}` };
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('hostile documents: garbage, deep nesting, huge, injection-like', async () => {
    const documents = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      hostileString,
      fc.integer({ min: 20, max: 400 }).map((n) => `{ ${'tensions { data { actor { '.repeat(n)} }`),
      fc.constantFrom(
        'mutation { senseTension(input: { name: "\'; drop table tensions; --", actorId: "{\\"$gt\\":\\"\\"}" }) { tension { id } } }',
        `{ ${Array.from({ length: 500 }, (_, i) => `a${i}: health`).join(' ')} }`,
        'query { __schema { types { name fields { name type { name ofType { name ofType { name } } } } } } }',
        'fragment A on Query { ...B } fragment B on Query { ...A } { ...A }',
        `mutation { ${Array.from({ length: 50 }, (_, i) => `m${i}: createActor(input: { name: "a${i}", type: organization }) { id }`).join(' ')} }`,
      ),
    );
    const bodies = fc.oneof(
      documents.map((query) => JSON.stringify({ query })),
      fc.record({ query: fc.constant('query($id: ID!) { tension(id: $id) { id } }'), variables: hostileValue }).map((b) => JSON.stringify(b)),
      fc.constantFrom(
        '{',
        '[]',
        '{"query":1}',
        '{"query":null}',
        '{"query":"{ health }","variables":"x"}',
        '{"query":"{ health }","operationName":{}}',
        `[${'{"query":"{ health }"},'.repeat(50)}{}]`,
      ),
    );
    await assertProperty(
      fc.asyncProperty(bodies, async (body) => {
        await writesNothingUnlessAccepted(async () => {
          const res = await post(body);
          expect(res.status, `${body.slice(0, 200)} → ${res.text.slice(0, 300)}`).toBeLessThan(500);
          if (res.json && !Array.isArray(res.json)) expectCodedErrors(res, body.slice(0, 200));
          return { accepted: Boolean(res.json?.data && !res.json?.errors?.length), describe: body.slice(0, 200) };
        });
      }),
      { numRuns: RUNS * 6 },
    );
  });
});

describe('MCP', () => {
  const targets = (Object.entries(OPERATION_SURFACES) as [Operation, OperationSurface][]).filter(([, s]) => s.mcp);

  async function rpc(body: string) {
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    });
    sent(res.status);
    const text = await res.text();
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      // asserted below
    }
    return { status: res.status, text, json };
  }

  /** The refusals a hostile input may earn: every contract code except the internal one. */
  const REFUSAL_CODES = ALL_REFUSAL_CODES.filter((c) => !c.startsWith('internal'));

  /** SPEC §7/§8: a tool call with bad arguments is a tool result with `isError` and a contract code, not a protocol error. */
  function expectToolAnswer(res: { status: number; text: string; json: any }, what: string): { accepted: boolean } {
    expect(res.status, what).toBe(200);
    expect(res.json?.error, what).toBeUndefined();
    const result = res.json?.result;
    expect(result, what).toBeDefined();
    if (result.isError) {
      expect(REFUSAL_CODES, what).toContain(result.structuredContent?.code);
      expectCodedFieldErrors(result.structuredContent?.errors, what);
    }
    return { accepted: !result.isError };
  }

  it.each(targets)('%s: hostile arguments → a tool error result with a contract code', async (_op, surface) => {
    const { tool, args } = surface.mcp!;
    const real = { ...args, ...('id' in args ? { id: tool.includes('actor') ? ids.actor : ids.tension } : {}) };
    const argsArb = fc
      .dictionary(fc.constantFrom(...Object.keys(real), 'name', 'score', 'id', 'actorId', '__proto__', 'limit'), hostileValue, { minKeys: 1, maxKeys: 3 })
      .map((d) => ({ ...real, ...d }));
    await assertProperty(
      fc.asyncProperty(argsArb, async (a) => {
        await writesNothingUnlessAccepted(async () => {
          const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: a } });
          const res = await rpc(body);
          const what = `${tool} ${body.slice(0, 200)} → ${res.text.slice(0, 300)}`;
          return { ...expectToolAnswer(res, what), describe: what };
        });
      }),
      { numRuns: RUNS },
    );
  });

  // The SDK would refuse these before our handler with -32603 and zod's issue list; server/mcp/server.ts
  // registers tools/call with any `arguments` so they reach the same validation as every other input.
  it('arguments that are not an object → JSON-RPC -32602 Invalid params, said in a sentence (no schema dump)', async () => {
    for (const a of ['"x"', '1', 'null', '[]', 'true']) {
      const res = await rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_tension","arguments":${a}}}`);
      const what = `arguments ${a} → ${res.text.slice(0, 300)}`;
      expect(res.status, what).toBeLessThan(500);
      expect(res.json.error.code, what).toBe(-32602);
      expect(res.json.error.message, what).not.toMatch(/invalid_type|"path"|\[\s*\{/);
      expectCodedFieldErrors(res.json.error.data?.errors, what);
    }
  });

  it('malformed JSON-RPC → a JSON-RPC error or 4xx, never a 5xx', async () => {
    const bodies = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 120 }),
      hostileValue.map((v) => JSON.stringify(v) ?? 'null'),
      fc
        .record({
          jsonrpc: fc.oneof(fc.constant('2.0'), hostileValue),
          id: hostileValue,
          method: fc.oneof(fc.constantFrom('tools/call', 'tools/list', 'initialize', 'resources/list', 'prompts/get'), hostileString),
          params: hostileValue,
        })
        .map((b) => JSON.stringify(b)),
    );
    await assertProperty(
      fc.asyncProperty(bodies, async (body) => {
        await writesNothingUnlessAccepted(async () => {
          const res = await rpc(body);
          expect(res.status, `${body.slice(0, 200)} → ${res.text.slice(0, 300)}`).toBeLessThan(500);
          return { accepted: false, describe: body.slice(0, 200) };
        });
      }),
      { numRuns: RUNS * 4 },
    );
  });
});
