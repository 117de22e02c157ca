// The admin web build as the server serves it: hashed assets compressed and immutable, index.html revalidated.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';

let app: TestApp;
let dist: string;
const script = `console.log(${JSON.stringify('market admin '.repeat(2000))});\n`;

/** A raw GET (fetch would decompress and hide Content-Encoding's effect on the length). */
function get(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: number }> {
  const url = new URL(path, app.url);
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), 'adminux-web-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Market admin</title><script type="module" src="/assets/index-AbC123.js"></script>');
  writeFileSync(join(dist, 'assets', 'index-AbC123.js'), script);
  app = await startTestApp({}, {}, undefined, { webDist: dist });
});

afterAll(async () => {
  await app?.close();
  rmSync(dist, { recursive: true, force: true });
});

describe('/.well-known (SPEC §8)', () => {
  it('answers every path under it with a JSON 404 naming the Bearer key, never the admin app', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/.well-known/']) {
      const res = await fetch(`${app.url}${path}`, { headers: { accept: 'text/html,application/json' } });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/problem\+json/);
      const body = (await res.json()) as { code: string; detail: string };
      expect(body.code).toBe('not_found');
      expect(body.detail).toMatch(/Bearer/);
    }
    // the admin app still answers its own routes
    expect((await fetch(`${app.url}/tensions`, { headers: { accept: 'text/html' } })).headers.get('content-type')).toMatch(/text\/html/);
  });
});

describe('admin web assets', () => {
  it('serves a hashed asset compressed, cached for a year as immutable', async () => {
    const r = await get('/assets/index-AbC123.js', { 'accept-encoding': 'gzip, br' });
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(['gzip', 'br']).toContain(r.headers['content-encoding']);
    expect(r.bytes).toBeLessThan(script.length / 10);
    expect(r.headers.vary).toMatch(/Accept-Encoding/i);
  });

  it('sends the asset uncompressed to a client that does not ask for compression', async () => {
    const r = await get('/assets/index-AbC123.js', { 'accept-encoding': 'identity' });
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.bytes).toBe(Buffer.byteLength(script));
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
    expect((await get('/assets/missing-123.js', { accept: 'application/json' })).status).toBe(404);
  });
});
