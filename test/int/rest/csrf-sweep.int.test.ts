// CSRF sweep, generated from the mounted REST router like the authorization sweep: every unsafe route
// called with a session cookie is refused (403 csrf_required) without `X-CSRF-Protection: 1`, and not
// refused for it with the header. Bearer requests are exempt; login needs no header (SPEC §5, §6).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { fillPath, mountedRoutes } from '../../support/operations.js';
import { seedHuman } from '../../support/sessions.js';
import { restRouter } from '../../../server/rest/router.js';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** login (both steps) starts a session, so there is no session cookie to protect yet */
const EXEMPT = new Set(['POST /auth/login', 'POST /auth/login/mfa']);

let app: TestApp;
let cookie: string;
let routes: { method: string; path: string }[];

beforeAll(async () => {
  app = await startTestApp();
  cookie = `session=${(await seedHuman(app, ['*'])).token}`;
  routes = mountedRoutes(restRouter(app.deps))
    .map((r) => ({ method: r.split(' ')[0], path: r.slice(r.indexOf(' ') + 1) }))
    .filter((r) => UNSAFE.has(r.method) && !EXEMPT.has(`${r.method} ${r.path}`))
    // logout ends the session the sweep runs on: last
    .sort((a, b) => Number(a.path === '/auth/logout') - Number(b.path === '/auth/logout'));
});
afterAll(async () => {
  await app?.close();
});

async function call(method: string, path: string, headers: Record<string, string>) {
  const body = method === 'DELETE' ? undefined : '{}';
  const res = await fetch(`${app.url}/api/v1${fillPath(path)}`, {
    method,
    headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe('CSRF on every unsafe cookie route', () => {
  it('covers PATCH, PUT, DELETE, logout, the password change and every POST', () => {
    const methods = new Set(routes.map((r) => r.method));
    expect([...methods].sort()).toEqual(['DELETE', 'PATCH', 'POST', 'PUT']);
    const names = routes.map((r) => `${r.method} ${r.path}`);
    expect(names).toEqual(expect.arrayContaining(['POST /auth/logout', 'POST /me/password', 'POST /tensions', 'DELETE /tensions/:id']));
    expect(routes.length).toBeGreaterThan(20);
  });

  it('refuses each without the header (403 csrf_required) and lets each through with it', async () => {
    const wrong: string[] = [];
    for (const { method, path } of routes) {
      const without = await call(method, path, { cookie });
      if (without.status !== 403 || without.body?.code !== 'csrf_required')
        wrong.push(`${method} ${path} without the header → ${without.status} ${without.body?.code}`);
      const withHeader = await call(method, path, { cookie, 'x-csrf-protection': '1' });
      if (withHeader.body?.code === 'csrf_required' || withHeader.status === 401 || withHeader.status >= 500)
        wrong.push(`${method} ${path} with the header → ${withHeader.status} ${withHeader.body?.code}`);
    }
    expect(wrong).toEqual([]);
  });

  it('a bearer request needs no header; GraphQL mutations with a cookie need it too', async () => {
    const bearer = client(app, (await seedUserWithKey(app, { grants: ['actors:write'] })).key);
    expect((await bearer.post('/actors', { name: 'Bearer Org', type: 'organization' })).status).toBe(201);
    const session = `session=${(await seedHuman(app, ['actors:write'])).token}`;
    const mutation = JSON.stringify({ query: 'mutation { createActor(input: { name: "Cookie Org", type: organization }) { id } }' });
    const gql = (headers: Record<string, string>) =>
      fetch(`${app.url}/graphql`, { method: 'POST', headers: { cookie: session, 'content-type': 'application/json', ...headers }, body: mutation }).then(
        async (r) => ({ status: r.status, body: await r.json() }),
      );
    const refused = await gql({});
    expect([refused.status, refused.body.errors?.[0]?.extensions?.code]).toEqual([403, 'CSRF_REQUIRED']);
    const allowed = await gql({ 'x-csrf-protection': '1' });
    expect(allowed.body.data?.createActor?.id).toEqual(expect.any(String));
  });
});
