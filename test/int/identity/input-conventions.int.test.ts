// Identity inputs follow the tensions' conventions (issue 11): names count code points, and an unknown
// key is refused as `unknown_field` instead of being dropped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import type { client } from '../../support/clients.js';
import { login, sessionClient } from '../../support/sessions.js';

let app: TestApp;
let admin: ReturnType<typeof client>;
beforeAll(async () => {
  app = await startTestApp();
  const res = await login(app, ADMIN.email, ADMIN.password);
  admin = sessionClient(app, res.token!);
});
afterAll(async () => {
  await app?.close();
});

// one code point, two UTF-16 units: a name of 200 is 400 units long
const emoji = (n: number) => '😀'.repeat(n);
const fieldErrors = (body: any) => body.errors.map(({ path, code, params }: any) => ({ path, code, params }));

describe('identity names count code points', () => {
  it('a user name of 200 emoji is accepted, 201 refused', async () => {
    const ok = await admin.post('/users', { email: 'emoji200@x.example', name: emoji(200), password: 'long-enough-password' });
    expect(ok.status).toBe(201);
    expect(ok.body.name).toBe(emoji(200));
    const long = await admin.post('/users', { email: 'emoji201@x.example', name: emoji(201), password: 'long-enough-password' });
    expect(long.status).toBe(400);
    expect(fieldErrors(long.body)).toEqual([{ path: 'name', code: 'too_long', params: { max: 200 } }]);
    const renamed = await admin.patch(`/users/${ok.body.id}`, { name: emoji(201) });
    expect(renamed.status).toBe(400);
  });

  it('a role name of 200 emoji is accepted, 201 refused', async () => {
    const ok = await admin.post('/roles', { code: 'emoji-200', name: emoji(200), permissions: [] });
    expect(ok.status).toBe(201);
    expect(ok.body.name).toBe(emoji(200));
    const long = await admin.post('/roles', { code: 'emoji-201', name: emoji(201), permissions: [] });
    expect(long.status).toBe(400);
    expect(fieldErrors(long.body)).toEqual([{ path: 'name', code: 'too_long', params: { max: 200 } }]);
    expect((await admin.patch(`/roles/${ok.body.id}`, { name: emoji(201) })).status).toBe(400);
  });
});

describe('path ids', () => {
  it('a UUID in upper case names the same user, role and actor; anything else is not found', async () => {
    const user = await admin.post('/users', { email: 'upper@x.example', name: 'Upper', password: 'long-enough-password' });
    const role = await admin.post('/roles', { code: 'upper-role', name: 'Upper', permissions: [] });
    const actor = await admin.post('/actors', { name: 'Upper', type: 'virtual' });
    for (const [path, id] of [
      ['users', user.body.id],
      ['roles', role.body.id],
      ['actors', actor.body.id],
    ] as const) {
      const found = await admin.get(`/${path}/${id.toUpperCase()}`);
      expect(found.status).toBe(200);
      expect(found.body.id).toBe(id);
      expect((await admin.get(`/${path}/${id}x`)).status).toBe(404);
    }
  });
});

describe('identity inputs are strict objects', () => {
  const unknownField = (res: { status: number; body: any }, key: string) => {
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(fieldErrors(res.body)).toEqual([{ path: '(root)', code: 'unknown_field', params: { keys: [key] } }]);
  };

  it('POST /users with an unknown field is 400 unknown_field and creates nothing', async () => {
    unknownField(await admin.post('/users', { email: 'strict@x.example', name: 'Strict', password: 'long-enough-password', admin: true }), 'admin');
    const list = await admin.get('/users?q=strict%40x.example');
    expect(list.body.data).toEqual([]);
  });

  it('PATCH /roles/:id with an unknown field is 400 unknown_field and changes nothing', async () => {
    const role = await admin.post('/roles', { code: 'strict-role', name: 'Strict', permissions: [] });
    expect(role.status).toBe(201);
    unknownField(await admin.patch(`/roles/${role.body.id}`, { name: 'Renamed', colour: 'red' }), 'colour');
    expect((await admin.get(`/roles/${role.body.id}`)).body).toMatchObject({ name: 'Strict', version: role.body.version });
  });

  it('POST /users/:id/api-keys with an unknown field is 400 unknown_field and mints nothing', async () => {
    const agent = await admin.post('/users', { type: 'agent', email: 'strict-agent@x.example', name: 'Strict agent' });
    expect(agent.status).toBe(201);
    unknownField(await admin.post(`/users/${agent.body.id}/api-keys`, { name: 'ci', scope: 'all' }), 'scope');
    expect((await admin.get(`/users/${agent.body.id}/api-keys`)).body.data).toEqual([]);
    // and the same body without the stray key is fine
    expect((await admin.post(`/users/${agent.body.id}/api-keys`, { name: 'ci' })).status).toBe(201);
  });

  it('list queries refuse unknown parameters too', async () => {
    unknownField(await admin.get('/users?colour=red'), 'colour');
    unknownField(await admin.get('/roles?colour=red'), 'colour');
  });
});
