// SPEC §5/§7 HTTP hygiene: a compressed body that is not what its Content-Encoding says is 400 (not 500);
// a wrong method on a known path is 405 with Allow (not 404); a request line or headers too large are
// 414 / 431 problem documents with a request id (not Node's empty 431); a PATCH body is a JSON object.
import { connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { MCP_HEADERS, raw } from '../../support/raw-http.js';

let app: TestApp;
let admin: { key: string; userId: string; roleId: string };
beforeAll(async () => {
  app = await startTestApp();
  admin = await seedUserWithKey(app, { grants: ['*'] });
});
afterAll(async () => {
  await app?.close();
});

describe('compressed bodies that are not what they say', () => {
  const json = Buffer.from(JSON.stringify({ email: 'nobody@test.example', password: 'wrong-password-123' }));
  const gz = gzipSync(json);
  const bodies: [string, string, Buffer][] = [
    ['gzip', 'not gzip', Buffer.from('{"email":"x"}')],
    ['gzip', 'truncated', gz.subarray(0, gz.length - 6)],
    ['deflate', 'not deflate', Buffer.from('{"email":"x"}')],
    ['br', 'not brotli', Buffer.from('{"email":"x"}')],
    ['br', 'truncated', brotliCompressSync(json).subarray(0, 3)],
  ];

  it('are 400 invalid_json on REST (anonymous login, a keyed POST) and on /mcp before authentication, never a 5xx', async () => {
    for (const [encoding, what, body] of bodies) {
      const label = `${encoding} ${what}`;
      const headers = { 'content-type': 'application/json', 'content-encoding': encoding };
      for (const [path, extra] of [
        ['/api/v1/auth/login', {}],
        ['/api/v1/actors', { authorization: `Bearer ${admin.key}` }],
      ] as const) {
        const res = await raw(app, 'POST', path, { ...headers, ...extra }, new Uint8Array(body));
        expect(res.status, `${label} ${path}`).toBe(400);
        expect(res.json, `${label} ${path}`).toMatchObject({ code: 'invalid_json', requestId: res.headers.get('x-request-id') });
      }
      const mcp = await raw(app, 'POST', '/mcp', { ...MCP_HEADERS, 'content-encoding': encoding }, new Uint8Array(body));
      expect(mcp.status, `${label} /mcp`).toBe(400);
      expect(mcp.json, `${label} /mcp`).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700, data: { code: 'invalid_json' } } });
    }
  });

  it('control: the same bodies compressed truly are read (login answers 401, an actor is created)', async () => {
    for (const [encoding, body] of [
      ['gzip', gz],
      ['deflate', deflateSync(json)],
      ['br', brotliCompressSync(json)],
    ] as const) {
      const res = await raw(app, 'POST', '/api/v1/auth/login', { 'content-type': 'application/json', 'content-encoding': encoding }, body);
      expect(res.json.code, encoding).toBe('invalid_credentials');
    }
    const created = await raw(
      app,
      'POST',
      '/api/v1/actors',
      { 'content-type': 'application/json', 'content-encoding': 'gzip', authorization: `Bearer ${admin.key}` },
      gzipSync(JSON.stringify({ name: 'Zipped', type: 'organization' })),
    );
    expect(created.status).toBe(201);
  });
});

describe('405 with Allow on a known path', () => {
  const cases: [string, string, string][] = [
    ['DELETE', '/api/v1/tensions', 'GET, HEAD, POST'],
    ['PUT', '/api/v1/auth/login', 'POST'],
    ['GET', '/api/v1/auth/logout', 'POST'],
    ['POST', '/api/v1/users/00000000-0000-4000-8000-000000000000', 'DELETE, GET, HEAD, PATCH'],
    ['DELETE', '/api/v1/users/00000000-0000-4000-8000-000000000000/roles', 'PUT'],
    ['PATCH', '/api/v1/events', 'GET, HEAD'],
    ['POST', '/api/v1/openapi.json', 'GET, HEAD'],
    ['PUT', '/healthz', 'GET, HEAD'],
    ['POST', '/readyz', 'GET, HEAD'],
    ['DELETE', '/metrics', 'GET, HEAD'],
  ];

  it('answers a method the path does not serve with 405 method_not_allowed and the methods it does, keyed or anonymous', async () => {
    for (const [method, path, allow] of cases) {
      for (const headers of [{ authorization: `Bearer ${admin.key}` }, {}] as Record<string, string>[]) {
        const res = await raw(app, method, path, headers);
        const label = `${method} ${path} ${Object.keys(headers).length ? 'keyed' : 'anonymous'}`;
        expect(res.status, label).toBe(405);
        expect(res.headers.get('allow'), label).toBe(allow);
        expect(res.json, label).toMatchObject({ status: 405, code: 'method_not_allowed', requestId: res.headers.get('x-request-id') });
      }
    }
  });

  it('still serves the methods a path serves (HEAD with GET), and an unknown path is still 404', async () => {
    expect((await raw(app, 'HEAD', '/api/v1/tensions', { authorization: `Bearer ${admin.key}` })).status).toBe(200);
    expect((await raw(app, 'HEAD', '/healthz')).status).toBe(200);
    expect((await raw(app, 'DELETE', '/api/v1/nothing-here', { authorization: `Bearer ${admin.key}` })).json.code).toBe('not_found');
    expect((await raw(app, 'DELETE', '/api/v1/tensions/00000000-0000-4000-8000-000000000000/nothing', { authorization: `Bearer ${admin.key}` })).status).toBe(
      404,
    );
  });
});

/** Writes a request as raw bytes and reads the whole answer (Node's parser refusals never reach fetch intact). */
function rawSocket(text: string): Promise<string> {
  const u = new URL(app.url);
  return new Promise((resolve) => {
    const s = connect(Number(u.port), u.hostname, () => s.write(text));
    let out = '';
    s.setEncoding('latin1');
    s.on('data', (d: string) => (out += d));
    s.on('close', () => resolve(out));
    s.on('error', () => resolve(out));
  });
}

function parseAnswer(text: string) {
  const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const requestId = /\r\nX-Request-Id: ([^\r\n]+)/i.exec(head)?.[1];
  return { status, head, requestId, json: JSON.parse(body) };
}

describe('414 and 431 as problem documents', () => {
  const line = (url: string) => `GET ${url} HTTP/1.1`;
  /** a path whose request line is exactly `bytes` long */
  const urlOfLine = (bytes: number) => `/healthz?p=${'a'.repeat(bytes - line('/healthz?p=').length)}`;

  it('a request line over the limit is 414 uri_too_long with a request id, whether the parser or the app catches it', async () => {
    for (const bytes of [8193, 12_000, 20_000, 70_000]) {
      const answer = parseAnswer(await rawSocket(`${line(urlOfLine(bytes))}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
      expect(answer.status, String(bytes)).toBe(414);
      expect(answer.head, String(bytes)).toMatch(/content-type: application\/problem\+json/i);
      expect(answer.json, String(bytes)).toMatchObject({
        type: 'urn:market-service:problem:uri_too_long',
        status: 414,
        code: 'uri_too_long',
        requestId: answer.requestId,
      });
      expect(answer.json.detail).not.toMatch(/`/);
    }
  });

  it('a request line of exactly 8,192 bytes is served', async () => {
    expect(line(urlOfLine(8192))).toHaveLength(8192);
    expect(parseAnswer(await rawSocket(`${line(urlOfLine(8192))}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)).status).toBe(200);
  });

  it('headers over the limit are 431 headers_too_large with a request id', async () => {
    for (const [what, headers] of [
      ['one large header', `X-Big: ${'a'.repeat(20_000)}\r\n`],
      ['many headers', Array.from({ length: 400 }, (_, i) => `X-H${i}: ${'b'.repeat(60)}\r\n`).join('')],
    ] as const) {
      const answer = parseAnswer(await rawSocket(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`));
      expect(answer.status, what).toBe(431);
      expect(answer.json, what).toMatchObject({
        type: 'urn:market-service:problem:headers_too_large',
        status: 431,
        code: 'headers_too_large',
        requestId: answer.requestId,
      });
    }
    // the server is still there
    expect((await raw(app, 'GET', '/healthz')).status).toBe(200);
  });
});

describe('PATCH bodies are JSON objects', () => {
  it('refuses null, an array, a number, a string and a boolean on users, roles and actors with 400, changing nothing', async () => {
    const c = client(app, admin.key);
    const actor = (await c.post('/actors', { name: 'Patched', type: 'organization' })).body.id as string;
    const paths = [`/users/${admin.userId}`, `/roles/${admin.roleId}`, `/actors/${actor}`];
    const versions = async () => Promise.all(paths.map(async (p) => (await c.get(p)).body.version));
    const before = await versions();
    for (const path of paths) {
      for (const body of ['null', '[]', '[{"name":"x"}]', '3', '"name"', 'true']) {
        const res = await raw(app, 'PATCH', `/api/v1${path}`, { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json' }, body);
        expect(res.status, `${path} ${body}`).toBe(400);
        expect(res.json, `${path} ${body}`).toMatchObject({
          code: 'validation_failed',
          errors: [{ path: '(root)', code: 'invalid_type', params: { expected: 'object' } }],
        });
      }
    }
    expect(await versions()).toEqual(before);
    // control: an object is a change
    expect((await c.patch(`/roles/${admin.roleId}`, { name: 'Renamed role' })).status).toBe(200);
  });
});
