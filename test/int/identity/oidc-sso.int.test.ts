// Single sign-on's HTTP edges (SPEC §16) without a browser: the configuration of §16, the first leg's
// redirect (PKCE S256, state, nonce) and flow cookie, a callback without this browser's flow refused and
// audited, the throttle on failed callbacks, and nothing offered when OIDC_ISSUER is unset. The browser flows
// against the provider are test/e2e/oidc-sso.e2e.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { startTestIdp, type TestIdp } from '../../support/oidc-idp.js';
import { loadConfig, ConfigError } from '../../../server/config.js';
import { MAX_FAILURES_PER_EMAIL } from '../../../server/application/auth/throttle.js';

let app: TestApp;
let idp: TestIdp;

beforeAll(async () => {
  app = await startTestApp();
  app.deps.config.publicUrl = app.url;
  idp = await startTestIdp(`${app.url}/api/v1/auth/oidc/callback`);
  app.deps.config.oidc = {
    issuer: idp.issuer,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    allowedDomains: [],
    roleClaim: null,
    roleMap: {},
    provision: false,
    scopes: 'openid email profile',
    displayName: 'Test IdP',
  };
});

afterAll(async () => {
  await idp?.close();
  await app?.close();
});

const get = (base: string, path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { redirect: 'manual', headers });

describe('single sign-on configuration (SPEC §16)', () => {
  const base = { NODE_ENV: 'test' };
  it('reads the variables of §16, with the role map as JSON and the domains lower-cased', () => {
    const c = loadConfig({
      ...base,
      OIDC_ISSUER: 'https://login.example.com/',
      OIDC_CLIENT_ID: 'market',
      OIDC_CLIENT_SECRET: 's3cret',
      OIDC_ALLOWED_DOMAINS: 'Example.com, ops.example.org',
      OIDC_ROLE_CLAIM: 'groups',
      OIDC_ROLE_MAP: '{"market-ops": "operator"}',
      OIDC_PROVISION: 'true',
    });
    expect(c.oidc).toMatchObject({
      issuer: 'https://login.example.com/',
      allowedDomains: ['example.com', 'ops.example.org'],
      roleClaim: 'groups',
      roleMap: { 'market-ops': 'operator' },
      provision: true,
      displayName: 'login.example.com',
    });
    expect(loadConfig(base).oidc).toBeNull();
  });

  it('reports every problem at once: no client credentials, a map that is not a JSON object, a map without its claim', () => {
    let problems: string[] = [];
    try {
      loadConfig({ ...base, OIDC_ISSUER: 'https://login.example.com', OIDC_ROLE_MAP: '["operator"]' });
    } catch (err) {
      problems = (err as ConfigError).problems;
    }
    expect(problems.some((p) => p.startsWith('OIDC_ROLE_MAP: must be a JSON object'))).toBe(true);
    expect(problems).toContain('OIDC_ISSUER: needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET');
    expect(problems).toContain('OIDC_ROLE_MAP: needs OIDC_ROLE_CLAIM (the claim holding the group names)');
  });
});

describe('single sign-on over HTTP', () => {
  it('offers nothing when OIDC_ISSUER is unset', async () => {
    const configured = app.deps.config.oidc;
    app.deps.config.oidc = null;
    try {
      expect(await (await get(app.url, '/api/v1/auth/oidc')).json()).toEqual({ enabled: false, displayName: null });
      expect((await get(app.url, '/api/v1/auth/oidc/start')).status).toBe(404);
      expect((await get(app.url, '/api/v1/auth/oidc/callback?code=x&state=y')).status).toBe(404);
    } finally {
      app.deps.config.oidc = configured;
    }
  });

  it('sends the browser to the provider with PKCE (S256), state and nonce, and keeps the flow in an HttpOnly, Lax cookie', async () => {
    expect(await (await get(app.url, '/api/v1/auth/oidc')).json()).toEqual({ enabled: true, displayName: 'Test IdP' });
    const res = await get(app.url, '/api/v1/auth/oidc/start');
    expect(res.status).toBe(303);
    const to = new URL(res.headers.get('location')!);
    expect(to.origin).toBe(idp.issuer);
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      client_id: idp.clientId,
      response_type: 'code',
      redirect_uri: `${app.url}/api/v1/auth/oidc/callback`,
      code_challenge_method: 'S256',
    });
    for (const p of ['state', 'nonce', 'code_challenge']) expect(to.searchParams.get(p)?.length).toBeGreaterThanOrEqual(43);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^oidc_flow=[^;]+; Max-Age=600; Path=\/api\/v1\/auth\/oidc; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
    // Two starts, two flows: nothing is reused.
    const again = new URL((await get(app.url, '/api/v1/auth/oidc/start')).headers.get('location')!);
    expect(again.searchParams.get('state')).not.toBe(to.searchParams.get('state'));
  });

  it('refuses a callback without this browser’s flow, audited as a failed sign-in; a forged flow cookie is no better', async () => {
    const res = await get(app.url, '/api/v1/auth/oidc/callback?code=abc&state=def', { 'x-forwarded-for': '203.0.113.7' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/?sso_error=failed');
    const forged = await get(app.url, '/api/v1/auth/oidc/callback?code=abc&state=def', { cookie: 'oidc_flow=eyJhbGciOiJub25lIn0.eyJzIjoiZGVmIn0.' });
    expect(forged.headers.get('location')).toBe('/?sso_error=failed');
    const [entry] = await app
      .em()
      .execute<{ action: string; by_kind: string; target_label: string; changes: unknown }[]>(
        `select action, by_kind, target_label, changes from audit_log where action = 'auth.login_failed' order by at desc limit 1`,
      );
    expect(entry).toMatchObject({
      action: 'auth.login_failed',
      by_kind: 'anonymous',
      target_label: 'single sign-on',
      changes: { method: { from: null, to: 'oidc' } },
    });
  });

  it(`throttles failed callbacks per client: the ${MAX_FAILURES_PER_EMAIL + 1}th within 15 minutes goes back as throttled`, async () => {
    const client = { 'x-forwarded-for': '198.51.100.23' };
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i++) {
      expect((await get(app.url, '/api/v1/auth/oidc/callback?code=a&state=b', client)).headers.get('location')).toBe('/?sso_error=failed');
    }
    expect((await get(app.url, '/api/v1/auth/oidc/callback?code=a&state=b', client)).headers.get('location')).toBe('/?sso_error=throttled');
    // another client is not held back
    expect((await get(app.url, '/api/v1/auth/oidc/callback?code=a&state=b', { 'x-forwarded-for': '198.51.100.24' })).headers.get('location')).toBe(
      '/?sso_error=failed',
    );
  });
});
