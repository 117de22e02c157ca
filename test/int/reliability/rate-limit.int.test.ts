// Request rate limits beyond login: per API key and per anonymous client, 429 rate_limited with Retry-After.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { loadConfig } from '../../../server/config.js';

const LIMIT = 5;
let app: TestApp;
let unlimited: TestApp;
beforeAll(async () => {
  app = await startTestApp({ rateLimitPerMinute: LIMIT });
  unlimited = await startTestApp({ rateLimitPerMinute: 0 });
});
afterAll(async () => {
  await app?.close();
  await unlimited?.close();
});

describe('rate limits', () => {
  it('are generous by default and configurable, 0 disabling them', () => {
    expect(loadConfig({}).rateLimitPerMinute).toBeGreaterThanOrEqual(100_000);
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '0' }).rateLimitPerMinute).toBe(0);
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: '-1' })).toThrow(/RATE_LIMIT_PER_MINUTE/);
  });

  it('count per key on every face: over the limit → 429 rate_limited with Retry-After; another key is unaffected', async () => {
    const one = await seedUserWithKey(app, { grants: ['tensions:read'] });
    const other = await seedUserWithKey(app, { grants: ['tensions:read'] });
    const api = client(app, one.key);
    for (let i = 0; i < LIMIT - 1; i++) expect((await api.get('/tensions')).status).toBe(200);
    expect((await api.gql('{ health }')).status).toBe(200);
    const rest = await api.get('/tensions');
    expect(rest.status).toBe(429);
    expect(rest.body).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(rest.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    const gql = await api.gql('{ health }');
    expect(gql.status).toBe(429);
    expect(gql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(gql.headers.get('retry-after')).not.toBeNull();
    const mcp = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${one.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(429);
    expect((await mcp.json()).error.data.code).toBe('rate_limited');
    expect((await client(app, other.key).get('/tensions')).status).toBe(200);
  });

  it('count anonymous requests per client address, invalid keys included', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await fetch(`${app.url}/api/v1/tensions`, { headers: i % 2 ? { authorization: `Bearer mk_${'x'.repeat(49)}` } : {} });
      statuses.push(res.status);
      if (res.status === 429) expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
    expect(statuses.slice(LIMIT)).toEqual([429, 429]);
    // liveness and readiness are never limited
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
  });

  it('tell a key its quota and what is left: RateLimit-Policy and RateLimit on every keyed answer, retryAfterSeconds in the 429', async () => {
    const agent = await seedUserWithKey(app, { grants: ['tensions:read'] });
    const api = client(app, agent.key);
    const seen: { policy: string | null; left: number; reset: number; status: number }[] = [];
    for (let i = 0; i < LIMIT + 1; i++) {
      const res = i % 2 ? await api.gql('{ health }') : await api.get('/tensions');
      const field = /^"default";r=(\d+);t=(\d+)$/.exec(res.headers.get('ratelimit') ?? '');
      expect(field, `answer ${i}: ${res.headers.get('ratelimit')}`).not.toBeNull();
      seen.push({ policy: res.headers.get('ratelimit-policy'), left: Number(field![1]), reset: Number(field![2]), status: res.status });
    }
    expect(seen.map((s) => s.policy)).toEqual(Array(LIMIT + 1).fill(`"default";q=${LIMIT};w=60`));
    expect(seen.map((s) => s.left)).toEqual([4, 3, 2, 1, 0, 0]);
    expect(seen.map((s) => s.status)).toEqual([200, 200, 200, 200, 200, 429]);
    for (const s of seen) {
      expect(s.reset).toBeGreaterThanOrEqual(1);
      expect(s.reset).toBeLessThanOrEqual(60);
    }
    // the per-key 429 says how long to wait in its body too, as the login throttle's does
    const refused = await api.get('/tensions');
    expect(refused.status).toBe(429);
    expect(refused.body.retryAfterSeconds).toBe(Number(refused.headers.get('retry-after')));
    // anonymous callers are limited per client, without a quota of their own to show
    const anonymous = await fetch(`${app.url}/api/v1/tensions`);
    expect([401, 429]).toContain(anonymous.status);
    expect([anonymous.headers.get('ratelimit'), anonymous.headers.get('ratelimit-policy')]).toEqual([null, null]);
  });

  it('are off with 0', async () => {
    const agent = await seedUserWithKey(unlimited, { grants: ['tensions:read'] });
    const api = client(unlimited, agent.key);
    for (let i = 0; i < LIMIT * 3; i++) expect((await api.get('/tensions')).status).toBe(200);
  });
});
