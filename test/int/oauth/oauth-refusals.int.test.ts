// SPEC §13 refusals: what the authorization server, the consent API and /mcp turn away, and how.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { seedUserWithKey } from '../../support/clients.js';
import { login, seedHuman, sessionClient } from '../../support/sessions.js';
import {
  authorizeCode,
  consentDecision,
  consentDetails,
  CookieJar,
  exchangeCode,
  pkcePair,
  registerClient,
  servePublicUrl,
  startAuthorization,
  tokenRequest,
} from '../../support/oauth.js';

let app: TestApp;
let clientId: string;
let person: Awaited<ReturnType<typeof seedHuman>>;
beforeAll(async () => {
  app = await startTestApp();
  servePublicUrl(app);
  person = await seedHuman(app, ['tensions:read', 'tensions:write']);
  clientId = (await registerClient(app)).json.client_id;
});
afterAll(async () => app?.close());

const errorOf = (res: Response) => new URL(res.headers.get('location') ?? 'http://x/', app.url).searchParams.get('error');

async function mcpStatus(token: string): Promise<{ status: number; challenge: string | null }> {
  const res = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await res.text();
  return { status: res.status, challenge: res.headers.get('www-authenticate') };
}

async function pendingConsent() {
  const jar = new CookieJar();
  const start = await startAuthorization(app, jar, { clientId });
  expect(start.status).toBe(303);
  return { jar, uid: start.headers.get('location')!.split('/').pop()! };
}

describe('the authorization endpoint refuses', () => {
  it('a request without PKCE', async () => {
    const res = await startAuthorization(app, new CookieJar(), { clientId, challenge: null });
    expect(errorOf(res)).toBe('invalid_request');
  });
  it('the plain PKCE method', async () => {
    const res = await startAuthorization(app, new CookieJar(), { clientId, challenge: pkcePair().verifier, method: 'plain' });
    expect(errorOf(res)).toBe('invalid_request');
  });
  it('a wrong resource, and a missing one', async () => {
    const wrong = await startAuthorization(app, new CookieJar(), { clientId, resource: 'https://elsewhere.example/mcp' });
    expect(errorOf(wrong)).toBe('invalid_target');
    const missing = await startAuthorization(app, new CookieJar(), { clientId, resource: null });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toBe('invalid_target');
  });
  it('a redirect URI the client did not register, without redirecting to it', async () => {
    const res = await startAuthorization(app, new CookieJar(), { clientId, redirectUri: 'https://attacker.example/cb' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });
});

describe('the token endpoint refuses', () => {
  it('a reused code, and revokes what the first use issued', async () => {
    const { code, verifier } = await authorizeCode(app, person.token, clientId);
    const first = await exchangeCode(app, clientId, code!, verifier);
    expect(first.status).toBe(200);
    expect((await mcpStatus(first.json.access_token)).status).toBe(200);
    const again = await exchangeCode(app, clientId, code!, verifier);
    expect(again.status).toBe(400);
    expect(again.json.error).toBe('invalid_grant');
    expect((await mcpStatus(first.json.access_token)).status).toBe(401);
  });

  it('a wrong code verifier', async () => {
    const { code } = await authorizeCode(app, person.token, clientId);
    const res = await exchangeCode(app, clientId, code!, pkcePair().verifier);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_grant');
  });

  it('a spent refresh token, and the whole grant is gone after', async () => {
    const { code, verifier } = await authorizeCode(app, person.token, clientId);
    const first = await exchangeCode(app, clientId, code!, verifier);
    const rotated = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: first.json.refresh_token, client_id: clientId });
    expect(rotated.status, JSON.stringify(rotated.json)).toBe(200);
    expect(rotated.json.refresh_token).not.toBe(first.json.refresh_token);
    expect((await mcpStatus(rotated.json.access_token)).status).toBe(200);
    const reused = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: first.json.refresh_token, client_id: clientId });
    expect(reused.status).toBe(400);
    expect(reused.json.error).toBe('invalid_grant');
    expect((await mcpStatus(rotated.json.access_token)).status).toBe(401);
    const next = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: rotated.json.refresh_token, client_id: clientId });
    expect(next.status).toBe(400);
    await expect
      .poll(
        async () => (await app.em().execute<{ n: number }[]>(`select count(*)::int as n from audit_log where action = 'oauth.refresh_reuse_detected'`))[0].n,
      )
      .toBeGreaterThan(0);
  });
});

describe('consent refuses', () => {
  it('a person without a session (the app then signs them in)', async () => {
    const { jar, uid } = await pendingConsent();
    const res = await consentDetails(app, jar, uid, null);
    expect(res.status).toBe(401);
  });
  it('an agent (with its key), which can never authorize', async () => {
    const agent = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read'] });
    const { jar, uid } = await pendingConsent();
    const res = await fetch(`${app.url}/oauth/consent/${uid}/details`, { headers: { cookie: jar.header(), authorization: `Bearer ${agent.key}` } });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('session_required');
  });
  it('a decision without the CSRF token or the CSRF header', async () => {
    const { jar, uid } = await pendingConsent();
    const details = await consentDetails(app, jar, uid, person.token);
    expect(details.status).toBe(200);
    const forged = await consentDecision(app, jar, uid, person.token, { decision: 'allow', csrfToken: 'x'.repeat(43) });
    expect(forged.status).toBe(403);
    expect(forged.json.code).toBe('csrf_required');
    const noHeader = await consentDecision(app, jar, uid, person.token, { decision: 'allow', csrfToken: details.json.csrfToken }, false);
    expect(noHeader.status).toBe(403);
    expect(noHeader.json.code).toBe('csrf_required');
  });
  it('permissions the person does not hold, or none at all; bad input is a clear 400', async () => {
    const { jar, uid } = await pendingConsent();
    const { json } = await consentDetails(app, jar, uid, person.token);
    const foreign = await consentDecision(app, jar, uid, person.token, { decision: 'allow', csrfToken: json.csrfToken, scopes: ['users:write'] });
    expect(foreign.status).toBe(400);
    const none = await consentDecision(app, jar, uid, person.token, { decision: 'allow', csrfToken: json.csrfToken, scopes: [] });
    expect(none.status).toBe(400);
    const junk = await consentDecision(app, jar, uid, person.token, { decision: 'maybe', csrfToken: json.csrfToken });
    expect(junk.status).toBe(400);
    expect((await consentDetails(app, jar, 'no-such-interaction', person.token)).status).toBe(404);
  });
  it('Deny redirects with access_denied and is audited', async () => {
    const { jar, uid } = await pendingConsent();
    const { json } = await consentDetails(app, jar, uid, person.token);
    const denied = await consentDecision(app, jar, uid, person.token, { decision: 'deny', csrfToken: json.csrfToken });
    expect(denied.status).toBe(200);
    const resumed = await fetch(new URL(denied.json.redirectTo, app.url), { redirect: 'manual', headers: { cookie: jar.header() } });
    expect(errorOf(resumed)).toBe('access_denied');
    const [entry] = await app
      .em()
      .execute<{ action: string }[]>(`select action from audit_log where by_user_id = ? and action = 'oauth.denied'`, [person.userId]);
    expect(entry?.action).toBe('oauth.denied');
  });
  it('being framed: the consent page says frame-ancestors none', async () => {
    const res = await fetch(`${app.url}/oauth/consent/anything`, { headers: { accept: 'text/html' } });
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('/mcp and the connected apps refuse', () => {
  it('no credentials, or a bad token, with the resource metadata in the challenge', async () => {
    const none = await mcpStatus('');
    expect(none.status).toBe(401);
    expect(none.challenge).toBe(`Bearer resource_metadata="${app.url}/.well-known/oauth-protected-resource/mcp"`);
    const bad = await mcpStatus('not-a-real-token-0123456789abcdef');
    expect(bad.status).toBe(401);
    expect(bad.challenge).toContain('error="invalid_token"');
  });
  it('malformed connected-app ids and user ids with a 400, unknown ones with a 404', async () => {
    const me = sessionClient(app, person.token);
    expect((await me.del('/me/connected-apps/%20bad%20')).status).toBe(400);
    expect((await me.del('/me/connected-apps/unknownGrantId')).status).toBe(404);
    const admin = sessionClient(app, (await login(app, ADMIN.email, ADMIN.password)).token!);
    expect((await admin.get('/users/not-a-uuid/connected-apps')).status).toBe(400);
    expect((await admin.del(`/users/${person.userId}/connected-apps/%20bad%20`)).status).toBe(400);
    expect((await admin.get('/users/7d3f1c52-5b1e-4c6a-9d0e-2f4b8a6c1e90/connected-apps')).status).toBe(404);
  });
  it('the same on GraphQL: malformed ids VALIDATION_FAILED, unknown ones NOT_FOUND, a key on the self-service SESSION_REQUIRED', async () => {
    const me = sessionClient(app, person.token);
    const codeOf = (res: { body: { errors?: { extensions?: { code?: string } }[] } }) => res.body.errors?.[0]?.extensions?.code;
    const revokeMine = 'mutation($appId: ID!) { revokeMyConnectedApp(appId: $appId) }';
    expect(codeOf(await me.gql(revokeMine, { appId: ' bad ' }))).toBe('VALIDATION_FAILED');
    expect(codeOf(await me.gql(revokeMine, { appId: 'unknownGrantId' }))).toBe('NOT_FOUND');
    const admin = sessionClient(app, (await login(app, ADMIN.email, ADMIN.password)).token!);
    const list = 'query($userId: ID!) { userConnectedApps(userId: $userId) { data { id } } }';
    expect(codeOf(await admin.gql(list, { userId: 'not-a-uuid' }))).toBe('VALIDATION_FAILED');
    expect(codeOf(await admin.gql(list, { userId: '7d3f1c52-5b1e-4c6a-9d0e-2f4b8a6c1e90' }))).toBe('USER_NOT_FOUND');
    const revokeTheirs = 'mutation($userId: ID!, $appId: ID!) { revokeUserConnectedApp(userId: $userId, appId: $appId) }';
    expect(codeOf(await admin.gql(revokeTheirs, { userId: person.userId, appId: ' bad ' }))).toBe('VALIDATION_FAILED');
    expect(codeOf(await admin.gql(revokeTheirs, { userId: person.userId, appId: 'unknownGrantId' }))).toBe('NOT_FOUND');
    const human = await seedUserWithKey(app, { type: 'human', grants: ['tensions:read'] });
    const byKey = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${human.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ myConnectedApps { data { id } } }' }),
    });
    expect(((await byKey.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe('SESSION_REQUIRED');
  });
  it('a key on the self-service list (a password session is needed)', async () => {
    const human = await seedUserWithKey(app, { type: 'human', grants: ['tensions:read'] });
    const res = await fetch(`${app.url}/api/v1/me/connected-apps`, { headers: { authorization: `Bearer ${human.key}` } });
    expect(res.status).toBe(403);
  });
  it('registrations beyond the per-address budget', async () => {
    let last = 0;
    for (let i = 0; i < 25 && last !== 429; i++) last = (await registerClient(app)).status;
    expect(last).toBe(429);
  });
});
