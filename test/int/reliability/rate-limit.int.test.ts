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

  it('are off with 0', async () => {
    const agent = await seedUserWithKey(unlimited, { grants: ['tensions:read'] });
    const api = client(unlimited, agent.key);
    for (let i = 0; i < LIMIT * 3; i++) expect((await api.get('/tensions')).status).toBe(200);
  });
});
