// The admin web build as the server serves it: the hashed assets the build precompressed (brotli, gzip) sent
// as those files with the original's type, immutable; the original to a client accepting neither; index.html revalidated.
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { ensureWebBuild } from '../../support/browser.js';

let app: TestApp;
const dist = new URL('../../../admin-web/dist/', import.meta.url).pathname;
let assets: string[];

/** A raw request (fetch would decompress and hide what was sent). */
function get(
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const url = new URL(path, app.url);
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  // the real build, through admin-web/vite.config.ts and its precompress plugin
  ensureWebBuild();
  assets = readdirSync(join(dist, 'assets')).filter((f) => !/\.(br|gz)$/.test(f));
  app = await startTestApp({}, {}, undefined, { webDist: dist });
}, 180_000);

afterAll(async () => {
  await app?.close();
});

describe('/.well-known (SPEC §8, §13)', () => {
  it('serves the OAuth metadata as JSON, and any other path under it as a JSON 404, never the admin app', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server']) {
      const res = await fetch(`${app.url}${path}`, { headers: { accept: 'text/html,application/json' } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
    }
    for (const path of ['/.well-known/security.txt', '/.well-known/']) {
      const res = await fetch(`${app.url}${path}`, { headers: { accept: 'text/html,application/json' } });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/problem\+json/);
      const body = (await res.json()) as { code: string; detail: string };
      expect(body.code).toBe('not_found');
    }
    // the admin app still answers its own routes
    expect((await fetch(`${app.url}/tensions`, { headers: { accept: 'text/html' } })).headers.get('content-type')).toMatch(/text\/html/);
  });
});

describe('admin web assets', () => {
  const TYPES: Record<string, RegExp> = { '.js': /^text\/javascript; charset=utf-8$/, '.css': /^text\/css; charset=utf-8$/ };
  const DECODE: Record<string, (b: Buffer) => Buffer> = { br: brotliDecompressSync, gzip: gunzipSync };

  it('has a .br and a .gz of every script and stylesheet, written by the build', () => {
    expect(assets.filter((f) => f.endsWith('.js')).length).toBeGreaterThan(0);
    const names = readdirSync(join(dist, 'assets'));
    for (const f of assets.filter((a) => /\.(js|css)$/.test(a))) expect(names, f).toEqual(expect.arrayContaining([`${f}.br`, `${f}.gz`]));
  });

  for (const [accept, encoding] of [
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['identity', undefined],
    ['', undefined],
  ] as const) {
    it(`answers Accept-Encoding "${accept}" with ${encoding ?? 'the original'}: its type, immutable, varying by encoding, the same bytes decoded`, async () => {
      for (const f of assets) {
        const original = readFileSync(join(dist, 'assets', f));
        const r = await get(`/assets/${f}`, accept ? { 'accept-encoding': accept } : {});
        expect(r.status, f).toBe(200);
        expect(r.headers['content-encoding'], f).toBe(encoding);
        expect(r.headers['content-type'], f).toMatch(TYPES[extname(f)] ?? /./);
        expect(r.headers['cache-control'], f).toBe('public, max-age=31536000, immutable');
        expect(r.headers.vary, f).toMatch(/Accept-Encoding/i);
        expect(Number(r.headers['content-length']), f).toBe(r.body.length);
        if (encoding) expect(r.body.length, f).toBeLessThan(original.length);
        expect((encoding ? DECODE[encoding](r.body) : r.body).equals(original), f).toBe(true);
      }
    });
  }

  it('answers HEAD with the headers of the GET and no body', async () => {
    const f = assets.find((a) => a.endsWith('.js'))!;
    const r = await get(`/assets/${f}`, { 'accept-encoding': 'br' }, 'HEAD');
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('br');
    expect(r.headers['content-type']).toMatch(TYPES['.js']);
    expect(r.body.length).toBe(0);
  });

  it('answers index.html and client-side routes with no-cache, so a new build is picked up at once', async () => {
    for (const path of ['/', '/tensions', '/users/123']) {
      const r = await get(path, { accept: 'text/html' });
      expect(r.status, path).toBe(200);
      expect(r.headers['content-type'], path).toMatch(/text\/html/);
      expect(r.headers['cache-control'], path).toBe('no-cache');
    }
  });

  it('leaves API answers alone: no compression, no long cache', async () => {
    const r = await get('/api/v1/tensions', { 'accept-encoding': 'gzip', accept: 'application/json' });
    expect(r.status).toBe(401);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(String(r.headers['cache-control'] ?? '')).not.toMatch(/immutable/);
    expect((await get('/assets/missing-123.js', { accept: 'application/json', 'accept-encoding': 'br, gzip' })).status).toBe(404);
  });
});
