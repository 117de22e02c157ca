// SPEC §13 on several instances: revocation, deactivation and a role change stop a token on the next call
// on every instance. Two buildApp's serve one database (each with its own authorization server and
// pool on PostgreSQL); each change is made through one instance and checked on the other, after both
// have served the token once (so a cache of either would be warm).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { onPostgres, type TestDatabase } from '../../support/database.js';
import { insertActor, seedHuman, sessionClient } from '../../support/sessions.js';
import { authorizeCode, exchangeCode, registerClient, servePublicUrl } from '../../support/oauth.js';
import { openDatabase } from '../../../server/persistence/database.js';

let a: TestApp;
let b: TestApp;
let admin: SeededUser;

beforeAll(async () => {
  a = await startTestApp();
  servePublicUrl(a);
  // B is another instance of the same service: same database, same PUBLIC_URL (the resource tokens are bound to).
  const shared: TestDatabase = onPostgres ? await openDatabase({ databaseUrl: a.db.url!, poolMax: 5 }) : { ...a.db, close: async () => undefined }; // the embedded database is single-process: one pool, two apps
  b = await startTestApp({ publicUrl: a.url }, {}, shared);
  admin = await seedUserWithKey(a, { grants: ['*'] });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

async function connect(grants: string[]) {
  const person = await seedHuman(a, grants);
  const reg = await registerClient(a);
  const { code, verifier } = await authorizeCode(a, person.token, reg.json.client_id);
  const tokens = await exchangeCode(a, reg.json.client_id, code!, verifier);
  expect(tokens.status, JSON.stringify(tokens.json)).toBe(200);
  return { person, clientId: reg.json.client_id as string, access: tokens.json.access_token as string };
}

/** One stateless JSON-RPC call to an instance's /mcp: its status and, when 200, the result. */
async function rpc(app: TestApp, token: string, method: string, params: Record<string, unknown> = {}) {
  const res = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  if (res.status !== 200) return { status: res.status, result: null };
  const json = text.startsWith('{') ? text : (text.split('\n').find((l) => l.startsWith('data:')) ?? 'data: {}').slice(5);
  return { status: res.status, result: JSON.parse(json).result as Record<string, any> };
}

const tools = async (app: TestApp, token: string) => ((await rpc(app, token, 'tools/list')).result?.tools ?? []).map((t: { name: string }) => t.name);

describe('a token on two instances', () => {
  it('serves the token on both before any change (the positive control)', async () => {
    const { access } = await connect(['tensions:read']);
    for (const app of [a, b]) expect((await rpc(app, access, 'tools/list')).status, app.url).toBe(200);
  });

  it('revocation (RFC 7009) through one instance stops the token on the other at the next call', async () => {
    const { access, clientId } = await connect(['tensions:read']);
    for (const app of [a, b]) expect((await rpc(app, access, 'tools/list')).status).toBe(200);
    const revoked = await fetch(`${b.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: access, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    for (const app of [a, b]) expect((await rpc(app, access, 'tools/list')).status, app.url).toBe(401);
  });

  it('revoking the connected app on one instance stops the token on the other', async () => {
    const { access, person } = await connect(['tensions:read']);
    for (const app of [a, b]) expect((await rpc(app, access, 'tools/list')).status).toBe(200);
    const me = sessionClient(a, person.token);
    const [grant] = (await me.get('/me/connected-apps')).body.data;
    expect((await me.del(`/me/connected-apps/${grant.id}`)).status).toBe(204);
    for (const app of [b, a]) expect((await rpc(app, access, 'tools/list')).status, app.url).toBe(401);
  });

  it('deactivation through one instance stops the token on the other', async () => {
    const { access, person } = await connect(['tensions:read']);
    for (const app of [a, b]) expect((await rpc(app, access, 'tools/list')).status).toBe(200);
    expect((await client(b, admin.key).del(`/users/${person.userId}`)).status).toBe(204);
    for (const app of [a, b]) expect((await rpc(app, access, 'tools/list')).status, app.url).toBe(401);
  });

  it('a role change through one instance narrows the token on the other: no write tool listed, a write refused', async () => {
    const { access, person } = await connect(['tensions:read', 'tensions:write']);
    for (const app of [a, b]) expect(await tools(app, access), app.url).toContain('sense_tension');
    const narrowed = await client(a, admin.key).patch(`/roles/${person.roleId}`, { permissions: ['tensions:read'] });
    expect(narrowed.status, JSON.stringify(narrowed.body)).toBe(200);
    const actorId = await insertActor(a, 'organization');
    for (const app of [b, a]) {
      expect(await tools(app, access), app.url).not.toContain('sense_tension');
      expect(await tools(app, access)).toContain('list_tensions');
      const write = await rpc(app, access, 'tools/call', { name: 'sense_tension', arguments: { name: 'Not any more', actorId } });
      expect(write.status).toBe(200);
      expect(write.result).toMatchObject({ isError: true, structuredContent: { code: 'forbidden' } });
    }
  });
});
