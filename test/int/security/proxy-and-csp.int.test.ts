// SPEC §6: the client address is the socket's peer unless TRUST_PROXY trusts the proxy that forwarded it,
// and the CSP asks for HTTPS upgrades only when the request arrived over HTTPS (directly or via a trusted
// proxy's X-Forwarded-Proto).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { createLogger } from '../../../server/logger.js';
import { loadConfig } from '../../../server/config.js';
import { raw } from '../../support/raw-http.js';

/** An app with a 2-a-minute anonymous limit whose request log lines are captured. */
async function appWith(trustProxy: number | string[]) {
  const lines: { client?: string; path?: string; msg?: string }[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = await startTestApp({ trustProxy, rateLimitPerMinute: 2, logLevel: 'info' }, { logger: createLogger('info', sink) });
  return { app, lines };
}

let trusting: Awaited<ReturnType<typeof appWith>>;
let distrusting: Awaited<ReturnType<typeof appWith>>;

beforeAll(async () => {
  trusting = await appWith(1);
  distrusting = await appWith(0);
});
afterAll(async () => {
  await trusting?.app.close();
  await distrusting?.app.close();
});

const anonymous = (app: TestApp, path: string, headers: Record<string, string>) => raw(app, 'GET', path, { accept: 'application/json', ...headers });

describe('TRUST_PROXY', () => {
  it('parses a hop count, false, or a list of addresses and CIDRs, and refuses anything else', () => {
    expect(loadConfig({}).trustProxy).toEqual(['loopback']);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(0);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,loopback, fd00::/8' }).trustProxy).toEqual(['10.0.0.0/8', '192.168.1.7', 'loopback', 'fd00::/8']);
    for (const bad of ['true', '*', '10.0.0.0/33', 'proxy.internal', '-1']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    }
  });

  it('with TRUST_PROXY=1, the forwarded client is the one the throttle counts and the log names', async () => {
    const { app, lines } = trusting;
    const from = (ip: string) => anonymous(app, '/api/v1/tensions', { 'x-forwarded-for': ip, 'x-request-id': `trust-${ip}-${Math.random()}` });
    expect((await from('203.0.113.7')).status).toBe(401);
    expect((await from('203.0.113.7')).status).toBe(401);
    expect((await from('203.0.113.7')).status).toBe(429);
    // Another forwarded client has its own bucket.
    expect((await from('203.0.113.8')).status).toBe(401);
    const logged = lines.filter((l) => l.msg === 'request' && l.path === '/api/v1/tensions').map((l) => l.client);
    expect(logged).toEqual(['203.0.113.7', '203.0.113.7', '203.0.113.7', '203.0.113.8']);
  });

  it("with TRUST_PROXY=0, a forged X-Forwarded-For is ignored: every forgery shares the peer's bucket, the log names the peer", async () => {
    const { app, lines } = distrusting;
    const forged = ['198.51.100.1', '198.51.100.2', '198.51.100.3'];
    const statuses: number[] = [];
    for (const ip of forged) statuses.push((await anonymous(app, '/api/v1/tensions', { 'x-forwarded-for': ip })).status);
    expect(statuses).toEqual([401, 401, 429]);
    const logged = lines.filter((l) => l.msg === 'request' && l.path === '/api/v1/tensions').map((l) => l.client);
    expect(logged).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1']);
  });
});

describe('Content-Security-Policy', () => {
  const csp = async (app: TestApp, path: string, headers: Record<string, string> = {}) =>
    (await anonymous(app, path, headers)).headers.get('content-security-policy') ?? '';

  it('asks for upgrade-insecure-requests only for a request that arrived over HTTPS through a trusted proxy', async () => {
    for (const path of ['/healthz', '/graphql']) {
      expect(await csp(trusting.app, path), path).not.toMatch(/upgrade-insecure-requests/);
      expect(await csp(trusting.app, path, { 'x-forwarded-proto': 'https' }), path).toMatch(/upgrade-insecure-requests/);
      expect(await csp(trusting.app, path, { 'x-forwarded-proto': 'http' }), path).not.toMatch(/upgrade-insecure-requests/);
    }
    // The policy is otherwise the same either way.
    const plain = await csp(trusting.app, '/healthz');
    const secure = await csp(trusting.app, '/healthz', { 'x-forwarded-proto': 'https' });
    expect(secure.replace(/;?upgrade-insecure-requests/, '')).toBe(plain);
    expect(plain).toMatch(/default-src 'self'/);
  });

  it('ignores X-Forwarded-Proto from a proxy it does not trust', async () => {
    expect(await csp(distrusting.app, '/healthz', { 'x-forwarded-proto': 'https' })).not.toMatch(/upgrade-insecure-requests/);
  });
});
