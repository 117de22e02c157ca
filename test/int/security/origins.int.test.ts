// SPEC §6/§8: no cross-origin access unless the origin is in CORS_ORIGINS (then with credentials, never a
// wildcard), on every face; /mcp refuses a foreign Origin with 403 whatever else the request carries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { allowHeaders, MCP_HEADERS, raw, rpc } from '../../support/raw-http.js';
import { ConfigError, loadConfig } from '../../../server/config.js';

const LISTED = 'http://console.test.example:8443';
let app: TestApp;
let plain: TestApp;
let admin: SeededUser;

beforeAll(async () => {
  app = await startTestApp({ corsOrigins: [LISTED] });
  plain = await startTestApp();
  admin = await seedUserWithKey(app, { grants: ['*'] });
});
afterAll(async () => {
  await app?.close();
  await plain?.close();
});

/** One request per face, each one the face would answer 2xx for a same-origin caller. */
const FACES = [
  { face: '/graphql', method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) },
  { face: '/api/v1', method: 'GET', path: '/api/v1/tensions', headers: {}, body: undefined },
  { face: '/mcp', method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) },
] as const;

const foreign = (a: TestApp) => [
  'null',
  'http://localhost:1',
  'http://127.0.0.1:1',
  'https://evil.example',
  `http://localhost:${new URL(a.url).port}`,
  `${LISTED}.evil.example`,
];

function preflight(a: TestApp, path: string, origin: string, method: string) {
  return raw(a, 'OPTIONS', path, {
    origin,
    'access-control-request-method': method,
    'access-control-request-headers': 'content-type, authorization, x-csrf-protection',
  });
}

describe('CORS', () => {
  it('CORS_ORIGINS takes exact origins, and refuses a wildcard or anything else, reported with every other problem', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: 'https://Console.Example.com, http://127.0.0.1:5173' }).corsOrigins).toEqual([
      'https://console.example.com',
      'http://127.0.0.1:5173',
    ]);
    for (const bad of ['*', 'https://*.example.com', 'null', 'https://a.example/', 'https://a.example/path', 'console.example.com', 'ftp://a.example']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS/);
    }
    try {
      loadConfig({ CORS_ORIGINS: '*', TRUST_PROXY: 'true', PORT: 'x' });
      expect.unreachable();
    } catch (err) {
      expect((err as ConfigError).problems.map((p) => p.split(':')[0]).sort()).toEqual(['CORS_ORIGINS', 'PORT', 'TRUST_PROXY']);
    }
  });

  it('answers a foreign Origin (null included) without any Access-Control-Allow-* header, on preflight and actual requests, on every face', async () => {
    for (const a of [app, plain]) {
      const key = a === app ? admin.key : (await seedUserWithKey(a, { grants: ['*'] })).key;
      for (const f of FACES) {
        for (const origin of foreign(a)) {
          const pre = await preflight(a, f.path, origin, f.method);
          expect(allowHeaders(pre.headers), `preflight ${f.face} from ${origin}`).toEqual({});
          expect(pre.status).toBeLessThan(500);
          const actual = await raw(a, f.method, f.path, { ...f.headers, origin, authorization: `Bearer ${key}` }, f.body);
          expect(allowHeaders(actual.headers), `${f.face} from ${origin}`).toEqual({});
          expect(actual.status).toBeLessThan(500);
        }
      }
    }
  });

  it('allows a listed origin exactly, with credentials and never a wildcard, on every face', async () => {
    for (const f of FACES) {
      const pre = await preflight(app, f.path, LISTED, f.method);
      expect(pre.status, f.face).toBe(204);
      expect(pre.headers.get('access-control-allow-origin'), f.face).toBe(LISTED);
      expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
      expect(pre.headers.get('access-control-allow-methods')).toContain(f.method);
      expect(pre.headers.get('access-control-allow-headers')).toMatch(/authorization/);
      expect(pre.headers.get('access-control-allow-headers')).toMatch(/x-csrf-protection/);
      expect(pre.headers.get('vary')).toMatch(/Origin/i);
      const actual = await raw(app, f.method, f.path, { ...f.headers, origin: LISTED, authorization: `Bearer ${admin.key}` }, f.body);
      expect(actual.status, `${f.face}: ${actual.text.slice(0, 200)}`).toBe(200);
      expect(actual.headers.get('access-control-allow-origin'), f.face).toBe(LISTED);
      expect(actual.headers.get('access-control-allow-credentials')).toBe('true');
      expect(actual.headers.get('access-control-expose-headers')).toMatch(/x-request-id/);
      for (const value of Object.values(allowHeaders(actual.headers))) expect(value).not.toContain('*');
    }
  });
});

describe('/mcp Origin check', () => {
  it('refuses a foreign Origin with 403 and a JSON-RPC error coded forbidden, with or without a valid key', async () => {
    for (const origin of foreign(app)) {
      for (const key of [admin.key, undefined]) {
        const res = await rpc(app, key, 'tools/list', {}, { origin });
        expect(res.status, `${origin} ${res.text.slice(0, 200)}`).toBe(403);
        expect(res.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { data: { code: 'forbidden' } } });
        expect(res.json.result).toBeUndefined();
      }
    }
  });

  it("lets in the service's own origin, a listed origin, and requests without Origin", async () => {
    for (const headers of [{ origin: app.url }, { origin: LISTED }, {}] as Record<string, string>[]) {
      const res = await rpc(app, admin.key, 'tools/call', { name: 'whoami', arguments: {} }, headers);
      expect(res.status, `${JSON.stringify(headers)} ${res.text.slice(0, 200)}`).toBe(200);
      expect(res.json.result.structuredContent.user.id).toBe(admin.userId);
    }
  });
});

describe('GraphQL CSRF prevention', () => {
  it('refuses a GET query carrying no preflight-forcing header as CSRF_REQUIRED, and serves it with one', async () => {
    const path = `/graphql?query=${encodeURIComponent('{ __typename }')}`;
    const bare = await raw(app, 'GET', path, { accept: 'application/json' });
    expect(bare.status, bare.text).toBe(403);
    expect(bare.json.errors[0].extensions.code).toBe('CSRF_REQUIRED');
    const marked = await raw(app, 'GET', path, { accept: 'application/json', 'x-csrf-protection': '1' });
    expect(marked.status, marked.text).toBe(200);
    expect(marked.json.data.__typename).toBe('Query');
  });
});
