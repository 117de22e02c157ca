import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client } from '../../support/clients.js';
import { login, sessionClient } from '../../support/sessions.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

describe('agent lifecycle (SPEC §6)', () => {
  it('admin signs in → creates an agent → scoped role → assigns → key → agent calls REST and GraphQL → rotation', async () => {
    const signIn = await login(app, ADMIN.email, ADMIN.password);
    expect(signIn.status).toBe(200);
    const admin = sessionClient(app, signIn.token!);

    const agent = await admin.post('/users', { type: 'agent', email: 'Bot@Example.COM', name: '  Pricing bot ' });
    expect(agent.status).toBe(201);
    expect(agent.body).toMatchObject({ type: 'agent', email: 'bot@example.com', name: 'Pricing bot', status: 'active', roles: [] });

    const role = await admin.post('/roles', { code: 'user-reader', name: 'User reader', permissions: ['users:read'] });
    expect(role.status).toBe(201);
    const assigned = await admin.put(`/users/${agent.body.id}/roles`, { roleIds: [role.body.id] });
    expect(assigned.status).toBe(200);
    expect(assigned.body.roles.map((r: any) => r.code)).toEqual(['user-reader']);

    const first = await admin.post(`/users/${agent.body.id}/api-keys`, { name: 'first' });
    expect(first.status).toBe(201);
    expect(first.body.key).toMatch(/^mk_[0-9A-Za-z]{49}$/);
    expect(first.body.prefix).toBe(first.body.key.slice(0, 12));

    const bot = client(app, first.body.key);
    const me = await bot.get('/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ authenticatedBy: 'api_key', permissions: ['users:read'], apiKey: { id: first.body.id, name: 'first' } });
    expect(me.body.apiKey.key).toBeUndefined();
    expect((await bot.get('/users')).status).toBe(200);
    const denied = await bot.get('/roles');
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'forbidden', missingPermission: 'roles:read' });
    const gql = await bot.gql('{ me { user { email } permissions authenticatedBy } users { data { email } } }');
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.me).toEqual({ user: { email: 'bot@example.com' }, permissions: ['users:read'], authenticatedBy: 'api_key' });

    // Rotate: a new key first, then revoke the old one.
    const second = await admin.post(`/users/${agent.body.id}/api-keys`, { name: 'second' });
    expect(second.status).toBe(201);
    expect((await admin.del(`/users/${agent.body.id}/api-keys/${first.body.id}`)).status).toBe(204);
    const refused = await bot.get('/auth/me');
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('unauthenticated');
    expect((await client(app, first.body.key).gql('{ me { permissions } }')).status).toBe(401);
    expect((await client(app, second.body.key).get('/auth/me')).body.apiKey.id).toBe(second.body.id);

    const keys = await admin.get(`/users/${agent.body.id}/api-keys`);
    expect(keys.status).toBe(200);
    expect(keys.body.data.map((k: any) => [k.name, k.revokedAt !== null])).toEqual([
      ['second', false],
      ['first', true],
    ]);
    expect(JSON.stringify(keys.body)).not.toMatch(/mk_[0-9A-Za-z]{20}|key_hash|keyHash/);
  });
});
