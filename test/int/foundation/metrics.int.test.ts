// GET /metrics (SPEC §9): Prometheus text with requests by route template, logins, limits and the pool.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { newActor, newTension } from '../../support/tensions.js';

/** The value of one sample line, `name{labels} value`, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => app?.close());

  it('counts requests by route template (never by raw id), failed logins and the database pool', async () => {
    const agent = await seedUserWithKey(app, { grants: ['tensions:write', 'tensions:read', 'actors:write'] });
    const api = client(app, agent.key);
    const tension = await newTension(api, { name: 'Measured', actorId: await newActor(api, 'Org') });
    for (const score of [7, 8, 8]) expect((await api.post(`/tensions/${tension.id}/rescore`, { score })).status).toBe(200);
    expect((await api.post(`/tensions/${tension.id}/reopen`, {})).status).toBe(200); // alive already: a no-op
    expect((await api.post(`/tensions/${tension.id}/revive`, { expectedVersion: 1 })).status).toBe(409);
    const failed = await fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADMIN.email, password: 'not-the-password' }),
    });
    expect(failed.status).toBe(401);

    const res = await fetch(`${app.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(sample(text, 'market_http_requests_total{method="POST",route="/api/v1/tensions/:id/rescore",status="200"}')).toBe(3);
    expect(sample(text, 'market_tension_commands_total{command="rescore",outcome="appended",code=""}')).toBe(2);
    expect(sample(text, 'market_tension_commands_total{command="rescore",outcome="noop",code=""}')).toBe(1);
    expect(sample(text, 'market_tension_commands_total{command="sense",outcome="appended",code=""}')).toBe(1);
    expect(sample(text, 'market_tension_commands_total{command="reopen",outcome="noop",code=""}')).toBe(1);
    expect(sample(text, 'market_tension_commands_total{command="revive",outcome="refused",code="version_conflict"}')).toBe(1);
    expect(sample(text, 'market_event_append_duration_seconds_count')).toBe(3);
    expect(text).not.toContain(tension.id);
    expect(sample(text, 'market_login_failures_total')).toBe(1);
    expect(sample(text, 'market_http_request_duration_seconds_count{method="POST",route="/api/v1/auth/login",status="401"}')).toBe(1);
    expect(sample(text, 'market_db_pool_connections{state="pending"}')).toBe(0);
    expect(text).toMatch(/^market_process_cpu_seconds_total /m);
  });
});

describe('GET /metrics, guarded and switched off', () => {
  it('needs `Bearer <METRICS_TOKEN>` when set (an API key is not it), and is absent with METRICS=false', async () => {
    const guarded = await startTestApp({ metricsToken: 'metrics-token-0123456789' });
    try {
      const agent = await seedUserWithKey(guarded, { grants: ['*'] });
      const none = await fetch(`${guarded.url}/metrics`);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: `Bearer ${agent.key}` } })).status).toBe(401);
      const ok = await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456789' } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toMatch(/^market_http_requests_total\{/m);
    } finally {
      await guarded.close();
    }
    const off = await startTestApp({ metrics: false });
    try {
      expect((await fetch(`${off.url}/metrics`)).status).toBe(404);
    } finally {
      await off.close();
    }
  }, 180_000);
});
