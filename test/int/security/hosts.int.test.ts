// SPEC §6: the service answers only to its own host names (PUBLIC_URL's, ALLOWED_HOSTS, or loopback and
// HOST when neither is set), so a page whose DNS name was rebound to the service's address gets 403
// `host_not_allowed` even when its Origin matches its Host: on /mcp, login, /metrics, GraphQL, the admin app.
// Probes (/healthz, /readyz) answer any host.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { seedUserWithKey } from '../../support/clients.js';
import { ConfigError, loadConfig } from '../../../server/config.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: any;
}

/** A request with exactly this Host header (fetch will not send a Host of our choosing). */
function send(app: TestApp, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const url = new URL(app.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path, headers: { ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let json: any = null;
          try {
            json = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rebinding-test', version: '1.0.0' } },
});
const mcpHeaders = (host: string, key: string) => ({
  host,
  origin: `http://${host}`,
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
});
const login = JSON.stringify({ email: 'nobody@test.example', password: 'wrong-password-123' });

function expectRefused(res: Answer, what: string) {
  expect(res.status, what).toBe(403);
  expect(res.json, what).toMatchObject({ status: 403, code: 'host_not_allowed', requestId: expect.any(String) });
  expect(res.headers['content-type'], what).toContain('application/problem+json');
}

describe('Host allow-list, no PUBLIC_URL nor ALLOWED_HOSTS: loopback and HOST', () => {
  let app: TestApp;
  let key: string;
  let port: string;
  beforeAll(async () => {
    app = await startTestApp();
    key = (await seedUserWithKey(app, { grants: ['tensions:read'] })).key;
    port = new URL(app.url).port;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('refuses a rebound name on /mcp with 403 even with a matching Origin and a valid key (the conformance scenario)', async () => {
    for (const host of ['evil.example.com', `evil.example.com:${port}`, `127.0.0.1.evil.example.com:${port}`, `localhost.evil.example.com`]) {
      expectRefused(await send(app, 'POST', '/mcp', mcpHeaders(host, key), initialize), host);
    }
  });

  it('refuses it on every other path too: login, /metrics, GraphQL introspection, the API document, the admin app', async () => {
    const host = `evil.example.com:${port}`;
    expectRefused(await send(app, 'POST', '/api/v1/auth/login', { host, origin: `http://${host}`, 'content-type': 'application/json' }, login), 'login');
    expectRefused(await send(app, 'GET', '/metrics', { host }), '/metrics');
    expectRefused(
      await send(
        app,
        'POST',
        '/graphql',
        { host, 'content-type': 'application/json', 'x-csrf-protection': '1' },
        JSON.stringify({ query: '{ __schema { types { name } } }' }),
      ),
      'introspection',
    );
    expectRefused(await send(app, 'GET', '/api/v1/openapi.json', { host }), 'openapi');
    expectRefused(await send(app, 'GET', '/', { host }), 'admin app');
  });

  it('serves the probes whatever the host (they are called by pod address)', async () => {
    expect((await send(app, 'GET', '/healthz', { host: 'evil.example.com' })).status).toBe(200);
    expect((await send(app, 'GET', '/readyz', { host: '10.1.2.3:8080' })).status).toBe(200);
  });

  it('serves localhost, 127.0.0.1 and [::1] with any port, in any case, on /mcp with their own Origin', async () => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'localhost', `LocalHost:${port}`, '127.0.0.1:1']) {
      const res = await send(app, 'POST', '/mcp', mcpHeaders(host, key), initialize);
      expect(res.status, host).toBe(200);
      expect(res.json.result.serverInfo.name, host).toBe('market-service');
    }
    expect((await send(app, 'POST', '/api/v1/auth/login', { host: `localhost:${port}`, 'content-type': 'application/json' }, login)).status).toBe(401);
  });
});

describe('Host allow-list with PUBLIC_URL and ALLOWED_HOSTS', () => {
  let app: TestApp;
  let key: string;
  beforeAll(async () => {
    const { publicUrl, allowedHosts } = loadConfig({ PUBLIC_URL: 'https://Market.Example.com', ALLOWED_HOSTS: 'market.internal, 10.0.0.7,[fd00::1]' });
    app = await startTestApp({ publicUrl, allowedHosts, metricsToken: 'metrics-token-0123456789' });
    key = (await seedUserWithKey(app, { grants: ['tensions:read'] })).key;
  });
  afterAll(async () => {
    await app?.close();
  });

  it("serves PUBLIC_URL's host and those listed, and no longer loopback", async () => {
    for (const host of ['market.example.com', 'market.example.com:443', 'market.internal:3000', '10.0.0.7', '[fd00::1]:8080']) {
      expect((await send(app, 'POST', '/mcp', mcpHeaders(host, key), initialize)).status, host).toBe(200);
    }
    for (const host of ['localhost', '127.0.0.1', 'evil.example.com', 'example.com', 'market.example.com.evil.example.com']) {
      expectRefused(await send(app, 'POST', '/mcp', mcpHeaders(host, key), initialize), host);
    }
  });

  it('lets /metrics behind METRICS_TOKEN answer any host (scrapers use pod addresses; a page cannot know the token)', async () => {
    expect((await send(app, 'GET', '/metrics', { host: '10.9.9.9:3000' })).status).toBe(401);
    expect((await send(app, 'GET', '/metrics', { host: '10.9.9.9:3000', authorization: 'Bearer metrics-token-0123456789' })).status).toBe(200);
  });
});

describe('PUBLIC_URL and ALLOWED_HOSTS configuration', () => {
  it('defaults: PUBLIC_URL is http://HOST:PORT, and the hosts are loopback and HOST', () => {
    const c = loadConfig({});
    expect(c.publicUrl).toBe('http://127.0.0.1:3000');
    expect(c.allowedHosts.sort()).toEqual(['127.0.0.1', '[::1]', 'localhost']);
    const wildcard = loadConfig({ HOST: '0.0.0.0', PORT: '8080' });
    expect(wildcard.publicUrl).toBe('http://localhost:8080');
    expect(loadConfig({ HOST: '::1' }).publicUrl).toBe('http://[::1]:3000');
    expect(loadConfig({ HOST: 'market.lan' }).allowedHosts).toContain('market.lan');
  });

  it('takes PUBLIC_URL as the public address and its host only; ALLOWED_HOSTS as host names or addresses', () => {
    const c = loadConfig({ PUBLIC_URL: 'https://market.example.com/', ALLOWED_HOSTS: 'A.example.com,192.168.1.2,::1,[fd00::2]' });
    expect(c.publicUrl).toBe('https://market.example.com');
    expect(c.allowedHosts).toEqual(['market.example.com', 'a.example.com', '192.168.1.2', '[::1]', '[fd00::2]']);
    expect(loadConfig({ ALLOWED_HOSTS: 'only.example.com' }).allowedHosts).toEqual(['only.example.com']);
  });

  it('refuses what is not a host name, and a PUBLIC_URL that is not an http(s) URL, reported with every other problem', () => {
    let error: unknown;
    try {
      loadConfig({ ALLOWED_HOSTS: 'https://a.example.com,b.example.com:443,*.example.com,ok.example.com', PUBLIC_URL: 'ftp://market.example.com', PORT: 'x' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const bad of ['https://a.example.com', 'b.example.com:443', '*.example.com', 'ftp://market.example.com']) expect(problems).toContain(bad);
    expect(problems).toContain('PORT');
    expect(problems).not.toContain('"ok.example.com"');
  });
});
