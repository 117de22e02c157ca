// SPEC §13: a token is a caller like a key — the person's grants ∩ the granted scopes, read on every request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, systemCtx, unwrap } from '../../support/clients.js';
import { mcpHttpClient } from '../../support/mcp.js';
import { insertActor, seedHuman, sessionClient } from '../../support/sessions.js';
import { authorizeCode, exchangeCode, registerClient, servePublicUrl } from '../../support/oauth.js';
import { deactivateUser } from '../../../server/application/users/users.js';
import { updateRole } from '../../../server/application/roles/roles.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  servePublicUrl(app);
});
afterAll(async () => app?.close());

async function connect(grants: string[], o: { scope?: string; scopes?: string[] } = {}) {
  const person = await seedHuman(app, grants);
  const reg = await registerClient(app);
  const { code, verifier } = await authorizeCode(app, person.token, reg.json.client_id, o);
  const tokens = await exchangeCode(app, reg.json.client_id, code!, verifier);
  expect(tokens.status, JSON.stringify(tokens.json)).toBe(200);
  return { person, clientId: reg.json.client_id as string, access: tokens.json.access_token as string, refresh: tokens.json.refresh_token as string };
}

async function mcpStatus(token: string): Promise<number> {
  const res = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await res.text();
  return res.status;
}

const toolNames = async (c: Client) => (await c.listTools()).tools.map((t) => t.name);

describe('tokens as callers', () => {
  it('whoami names the person, and a full grant lists write tools', async () => {
    const { person, access } = await connect(['tensions:read', 'tensions:write', 'actors:read']);
    const mcp = await mcpHttpClient(app, access);
    const who = await mcp.callTool({ name: 'whoami', arguments: {} });
    expect(JSON.stringify(who.structuredContent ?? who.content)).toContain(person.userId);
    expect(JSON.stringify(who.structuredContent ?? who.content)).toContain('oauth');
    expect(await toolNames(mcp)).toContain('sense_tension');
    await mcp.close();
  });

  it('a grant narrowed to tensions:read shows no write tools and is refused a write', async () => {
    const { access } = await connect(['tensions:read', 'tensions:write'], { scopes: ['tensions:read'] });
    const mcp = await mcpHttpClient(app, access);
    const names = await toolNames(mcp);
    expect(names).toContain('list_tensions');
    expect(names).not.toContain('sense_tension');
    const actorId = await insertActor(app, 'organization');
    const write = await mcp
      .callTool({ name: 'sense_tension', arguments: { name: 'Not allowed', actorId } })
      .catch((e: Error) => ({ isError: true, thrown: e.message }));
    expect(write.isError).toBe(true);
    await mcp.close();
  });

  it('a scope parameter limits what the consent offers', async () => {
    const { access } = await connect(['tensions:read', 'tensions:write', 'actors:read'], { scope: 'tensions:read actors:read' });
    const mcp = await mcpHttpClient(app, access);
    const names = await toolNames(mcp);
    expect(names).toContain('list_actors');
    expect(names).not.toContain('sense_tension');
    await mcp.close();
  });

  it('events written through a token carry via mcp and the grant id', async () => {
    const { access, person } = await connect(['tensions:read', 'tensions:write', 'actors:read']);
    const actorId = await insertActor(app, 'organization');
    const mcp = await mcpHttpClient(app, access);
    const sensed = await mcp.callTool({ name: 'sense_tension', arguments: { name: 'Through OAuth', actorId } });
    expect(sensed.isError ?? false).toBe(false);
    await mcp.close();
    const [apps] = [(await sessionClient(app, person.token).get('/me/connected-apps')).body.data];
    const [event] = await app
      .em()
      .execute<{ metadata: Record<string, unknown> }[]>(`select metadata from domain_events where metadata->>'userId' = ? order by position desc limit 1`, [
        person.userId,
      ]);
    expect(event.metadata).toMatchObject({ via: 'mcp', oauthGrantId: apps[0].id, apiKeyId: null });
  });

  it('a token is refused on REST and GraphQL', async () => {
    const { access } = await connect(['tensions:read']);
    expect((await client(app, access).get('/tensions')).status).toBe(401);
    const gql = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { user { id } } }' }),
    });
    expect(gql.status).toBe(401);
  });

  it('revocation (RFC 7009) stops the token on the next call', async () => {
    const { access, clientId } = await connect(['tensions:read']);
    expect(await mcpStatus(access)).toBe(200);
    const res = await fetch(`${app.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: access, client_id: clientId }),
    });
    expect(res.status).toBe(200);
    expect(await mcpStatus(access)).toBe(401);
  });

  it('revoking the connected app stops the token, and the app is gone from the list', async () => {
    const { access, person } = await connect(['tensions:read']);
    const me = sessionClient(app, person.token);
    const list = await me.get('/me/connected-apps');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ client: { name: 'Test assistant', verified: false }, scopes: ['tensions:read'] });
    expect(await mcpStatus(access)).toBe(200);
    expect((await me.del(`/me/connected-apps/${list.body.data[0].id}`)).status).toBe(204);
    expect(await mcpStatus(access)).toBe(401);
    expect((await me.get('/me/connected-apps')).body.data).toHaveLength(0);
    const audit = await app.em().execute<{ action: string }[]>(`select action from audit_log where by_user_id = ? order by at`, [person.userId]);
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(['oauth.authorized', 'oauth.revoked']));
  });

  it('on GraphQL: myConnectedApps and userConnectedApps list the app, revokeMyConnectedApp stops its token', async () => {
    const { access, person } = await connect(['tensions:read']);
    const me = sessionClient(app, person.token);
    const mine = await me.gql('{ myConnectedApps { data { id client { name verified } scopes createdAt lastUsedAt } } }');
    expect(mine.body.errors).toBeUndefined();
    const [grant] = mine.body.data.myConnectedApps.data;
    expect(grant).toMatchObject({ client: { name: 'Test assistant', verified: false }, scopes: ['tensions:read'] });
    const admin = await seedUserWithKey(app, { grants: ['users:read'] });
    const theirs = await client(app, admin.key).gql('query($u: ID!) { userConnectedApps(userId: $u) { data { id } } }', { u: person.userId });
    expect(theirs.body.data.userConnectedApps.data).toEqual([{ id: grant.id }]);
    expect(await mcpStatus(access)).toBe(200);
    const revoked = await me.gql('mutation($a: ID!) { revokeMyConnectedApp(appId: $a) }', { a: grant.id });
    expect(revoked.body).toEqual({ data: { revokeMyConnectedApp: true } });
    expect(await mcpStatus(access)).toBe(401);
    expect((await me.gql('{ myConnectedApps { data { id } } }')).body.data.myConnectedApps.data).toEqual([]);
  });

  it('deactivation stops the token on the next call', async () => {
    const { access, person } = await connect(['tensions:read']);
    expect(await mcpStatus(access)).toBe(200);
    unwrap(await deactivateUser(app.deps, systemCtx(), person.userId), 'deactivate');
    expect(await mcpStatus(access)).toBe(401);
  });

  it('a role change narrows the token on the next call', async () => {
    const { access, person } = await connect(['tensions:read', 'tensions:write']);
    const mcp = await mcpHttpClient(app, access);
    expect(await toolNames(mcp)).toContain('sense_tension');
    unwrap(await updateRole(app.deps, systemCtx(), person.roleId, { permissions: ['tensions:read'] }), 'narrow role');
    expect(await toolNames(mcp)).not.toContain('sense_tension');
    await mcp.close();
  });
});
