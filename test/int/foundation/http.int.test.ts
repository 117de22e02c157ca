import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

describe('HTTP plumbing', () => {
  it('answers liveness and readiness, with a request id echoed or generated', async () => {
    const live = await fetch(`${app.url}/healthz`, { headers: { 'x-request-id': 'probe-1' } });
    expect(live.status).toBe(200);
    expect(live.headers.get('x-request-id')).toBe('probe-1');
    const ready = await fetch(`${app.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
    expect(ready.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses an unauthenticated REST call with a problem document and WWW-Authenticate', async () => {
    const res = await fetch(`${app.url}/api/v1/tensions`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = await res.json();
    expect(body).toMatchObject({ status: 401, code: 'unauthenticated', requestId: res.headers.get('x-request-id') });
  });

  it('refuses a malformed bearer key before any lookup', async () => {
    const res = await fetch(`${app.url}/api/v1/tensions`, { headers: { authorization: 'Bearer mk_nope' } });
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe('unauthenticated');
  });

  it('maps broken JSON, oversized bodies and non-JSON bodies to 400/413/415', async () => {
    const post = (body: string, type = 'application/json') =>
      fetch(`${app.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': type }, body });
    const broken = await post('{"email":');
    expect(broken.status).toBe(400);
    expect((await broken.json()).code).toBe('invalid_json');
    const big = await post(JSON.stringify({ email: 'x'.repeat(110_000) }));
    expect(big.status).toBe(413);
    expect((await big.json()).code).toBe('payload_too_large');
    const text = await post('email=a', 'application/x-www-form-urlencoded');
    expect(text.status).toBe(415);
    expect((await text.json()).code).toBe('unsupported_media_type');
  });

  it('answers unknown routes with 404 not_found, never a stack', async () => {
    const res = await fetch(`${app.url}/nowhere/at/all`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.code).toBe('not_found');
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/);
  });

  it('serves GraphiQL from the server itself', async () => {
    const res = await fetch(`${app.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('GraphiQL');
    expect(html).not.toMatch(/unpkg\.com|jsdelivr|cdn\./);
  });
});
