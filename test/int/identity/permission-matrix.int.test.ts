// Every identity endpoint and GraphQL field × a set of roles, as data; run for a human (session cookie) and an
// agent (API key) holding the same roles: the user type grants nothing. Allowed calls use unknown ids or invalid
// bodies so they change nothing and still prove the permission check passed (404/400 instead of 403).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { seedHuman, sessionClient } from '../../support/sessions.js';

const X = '00000000-0000-4000-8000-00000000000a';
const Y = '00000000-0000-4000-8000-00000000000b';

type Method = 'get' | 'post' | 'patch' | 'put' | 'del';
interface RestCase {
  method: Method;
  path: string;
  body?: unknown;
  needs: string | null;
  allowed: number;
}
interface GqlCase {
  field: string;
  needs: string | null;
  allowedCode: string | null;
}

const REST: RestCase[] = [
  { method: 'get', path: '/users', needs: 'users:read', allowed: 200 },
  { method: 'post', path: '/users', body: {}, needs: 'users:write', allowed: 400 },
  { method: 'get', path: `/users/${X}`, needs: 'users:read', allowed: 404 },
  { method: 'patch', path: `/users/${X}`, body: {}, needs: 'users:write', allowed: 404 },
  { method: 'del', path: `/users/${X}`, needs: 'users:write', allowed: 404 },
  { method: 'put', path: `/users/${X}/roles`, body: { roleIds: [] }, needs: 'users:write', allowed: 404 },
  { method: 'post', path: `/users/${X}/password`, body: { password: 'long-enough-password' }, needs: 'users:write', allowed: 404 },
  { method: 'get', path: `/users/${X}/api-keys`, needs: 'users:read', allowed: 404 },
  { method: 'post', path: `/users/${X}/api-keys`, body: { name: 'k' }, needs: 'users:write', allowed: 404 },
  { method: 'del', path: `/users/${X}/api-keys/${Y}`, needs: 'users:write', allowed: 404 },
  { method: 'get', path: '/roles', needs: 'roles:read', allowed: 200 },
  { method: 'post', path: '/roles', body: {}, needs: 'roles:write', allowed: 400 },
  { method: 'get', path: `/roles/${X}`, needs: 'roles:read', allowed: 404 },
  { method: 'patch', path: `/roles/${X}`, body: {}, needs: 'roles:write', allowed: 404 },
  { method: 'del', path: `/roles/${X}`, needs: 'roles:write', allowed: 404 },
  { method: 'get', path: '/permissions', needs: 'roles:read', allowed: 200 },
  { method: 'get', path: '/auth/me', needs: null, allowed: 200 },
];

const QUERIES: (GqlCase & { q: string })[] = [
  { field: 'users', q: 'users { data { id } }', needs: 'users:read', allowedCode: null },
  { field: 'user', q: `user(id: "${X}") { id }`, needs: 'users:read', allowedCode: 'USER_NOT_FOUND' },
  { field: 'userApiKeys', q: `userApiKeys(userId: "${X}") { data { id } }`, needs: 'users:read', allowedCode: 'USER_NOT_FOUND' },
  { field: 'roles', q: 'roles { data { id } }', needs: 'roles:read', allowedCode: null },
  { field: 'role', q: `role(id: "${X}") { id }`, needs: 'roles:read', allowedCode: 'NOT_FOUND' },
  { field: 'permissions', q: 'permissions', needs: 'roles:read', allowedCode: null },
  { field: 'me', q: 'me { authenticatedBy }', needs: null, allowedCode: null },
];
const MUTATIONS: (GqlCase & { q: string })[] = [
  { field: 'createUser', q: 'createUser(input: {email: "x", name: ""}) { id }', needs: 'users:write', allowedCode: 'VALIDATION_FAILED' },
  { field: 'updateUser', q: `updateUser(id: "${X}", input: {}) { id }`, needs: 'users:write', allowedCode: 'USER_NOT_FOUND' },
  { field: 'deactivateUser', q: `deactivateUser(id: "${X}") { id }`, needs: 'users:write', allowedCode: 'USER_NOT_FOUND' },
  { field: 'setUserRoles', q: `setUserRoles(id: "${X}", roleIds: []) { id }`, needs: 'users:write', allowedCode: 'USER_NOT_FOUND' },
  { field: 'resetUserPassword', q: `resetUserPassword(id: "${X}", password: "long-enough-password")`, needs: 'users:write', allowedCode: 'USER_NOT_FOUND' },
  { field: 'provisionApiKey', q: `provisionApiKey(userId: "${X}", input: {name: "k"}) { id }`, needs: 'users:write', allowedCode: 'USER_NOT_FOUND' },
  { field: 'revokeApiKey', q: `revokeApiKey(userId: "${X}", keyId: "${Y}")`, needs: 'users:write', allowedCode: 'USER_NOT_FOUND' },
  { field: 'createRole', q: 'createRole(input: {code: "", name: "", permissions: []}) { id }', needs: 'roles:write', allowedCode: 'VALIDATION_FAILED' },
  { field: 'updateRole', q: `updateRole(id: "${X}", input: {}) { id }`, needs: 'roles:write', allowedCode: 'NOT_FOUND' },
  { field: 'deleteRole', q: `deleteRole(id: "${X}")`, needs: 'roles:write', allowedCode: 'NOT_FOUND' },
];

const ROLES: string[][] = [[], ['users:read'], ['users:write'], ['users:*'], ['roles:read'], ['roles:write', 'tensions:*'], ['*']];

/** Written out here, independently of the server's matcher. */
function covers(grants: string[], needed: string | null): boolean {
  if (needed === null) return true;
  return grants.some((g) => g === '*' || g === needed || g === `${needed.split(':')[0]}:*`);
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

type Client = ReturnType<typeof client>;

async function checkRest(c: Client, grants: string[]) {
  for (const rc of REST) {
    const res = await (rc.method === 'get' || rc.method === 'del' ? c[rc.method](rc.path) : c[rc.method](rc.path, rc.body));
    const label = `${rc.method.toUpperCase()} ${rc.path} with [${grants.join(', ')}]`;
    if (covers(grants, rc.needs)) {
      expect(res.status, label).toBe(rc.allowed);
    } else {
      expect(res.status, label).toBe(403);
      expect(res.body, label).toMatchObject({ code: 'forbidden', missingPermission: rc.needs });
    }
  }
}

async function checkGql(c: Client, grants: string[], kind: 'query' | 'mutation', cases: (GqlCase & { q: string })[]) {
  // One field a request: when a non-null root field fails, the executor may drop its siblings' errors.
  for (const gc of cases) {
    const res = await c.gql(`${kind} { ${gc.q} }`);
    const errors: any[] = res.body.errors ?? [];
    const label = `${kind} ${gc.field} with [${grants.join(', ')}]`;
    // An error that names no field (a document the server could not run) proves nothing either way.
    expect(
      errors.filter((e) => e.path?.[0] !== gc.field),
      `${label}: ${JSON.stringify(errors)}`,
    ).toEqual([]);
    const err = errors[0];
    if (covers(grants, gc.needs)) {
      expect(err?.extensions.code ?? null, label).toBe(gc.allowedCode);
      if (gc.allowedCode === null) expect(res.body.data?.[gc.field], label).toBeTruthy();
    } else {
      expect(err?.extensions, label).toMatchObject({ code: 'FORBIDDEN', missingPermission: gc.needs });
    }
  }
}

describe.each(['human', 'agent'] as const)('permission matrix as a %s', (type) => {
  it.each(ROLES.map((g) => [g.join(',') || '(none)', g] as const))('role [%s]', async (_label, grants) => {
    const c =
      type === 'human'
        ? sessionClient(app, (await seedHuman(app, [...grants])).token)
        : client(app, (await seedUserWithKey(app, { type: 'agent', grants: [...grants] })).key);
    await checkRest(c, [...grants]);
    await checkGql(c, [...grants], 'query', QUERIES);
    await checkGql(c, [...grants], 'mutation', MUTATIONS);
  });
});
