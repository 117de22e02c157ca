// SPEC §7: every item of a validation_failed refusal's `errors` carries a stable `code` (a string of the
// documented vocabulary) and its `params` (an object, `{}` when it has none), on every face. The cases are
// the offenders a fuzzing review found without them: a forged cursor, an expiry in the past, a NUL
// character, unknown roles, a field that cannot change, a wrong current password, malformed tools/call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, SEED_PASSWORD, type SeededUser } from '../../support/clients.js';
import { FIELD_ERROR_CODES } from '../../../server/domain/errors.js';

let app: TestApp;
let admin: SeededUser;
let human: SeededUser;
let cookie: string;
const ids = { agent: '', human: '', actor: '' };
const PAST = '2001-01-01T00:00:00Z';
const NO_ROLE = '00000000-0000-4000-8000-00000000abcd';

beforeAll(async () => {
  app = await startTestApp();
  admin = await seedUserWithKey(app, { grants: ['*'] });
  human = await seedUserWithKey(app, { type: 'human', grants: ['tensions:read'] });
  const api = client(app, admin.key);
  ids.agent = (await api.post('/users', { type: 'agent', email: 'field-errors-agent@test.example', name: 'Agent' })).body.id;
  ids.human = human.userId;
  ids.actor = (await api.post('/actors', { name: 'Field errors org', type: 'organization' })).body.id;
  const login = await fetch(`${app.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: human.email, password: SEED_PASSWORD }),
  });
  expect(login.status).toBe(200);
  cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  expect(Object.values(ids).every(Boolean)).toBe(true);
});
afterAll(async () => {
  await app?.close();
});

interface Item {
  path: unknown;
  message: unknown;
  code: unknown;
  params: unknown;
}

/** Every item has a string path and message, a code of the documented vocabulary and an object of params. */
function expectCoded(items: Item[] | undefined, what: string): Item[] {
  expect(Array.isArray(items) && items.length > 0, `${what}: no errors[]`).toBe(true);
  for (const item of items!) {
    expect(item.path, what).toEqual(expect.any(String));
    expect(item.message, what).toEqual(expect.any(String));
    expect(FIELD_ERROR_CODES, `${what}: ${JSON.stringify(item)}`).toContain(item.code);
    expect(item.params !== null && typeof item.params === 'object' && !Array.isArray(item.params), `${what}: params of ${JSON.stringify(item)}`).toBe(true);
  }
  return items!;
}

const session = () => client(app, undefined, { cookie, 'x-csrf-protection': '1' });

describe('REST: every errors[] item has code and params', () => {
  const cases: [string, () => Promise<{ status: number; body: any }>, { path: string; code: string; params?: Record<string, unknown> }][] = [
    [
      'a forged list cursor',
      () => client(app, admin.key).get('/tensions?cursor=forged'),
      { path: 'cursor', code: 'invalid_format', params: { format: 'cursor' } },
    ],
    ['a forged user-list cursor', () => client(app, admin.key).get('/users?cursor=eyJ4IjoxfQ.AAAA'), { path: 'cursor', code: 'invalid_format' }],
    ['a forged feed cursor', () => client(app, admin.key).get('/events?after=forged'), { path: 'after', code: 'invalid_format', params: { format: 'cursor' } }],
    [
      'an expiry in the past',
      () => client(app, admin.key).post(`/users/${ids.agent}/api-keys`, { name: 'late', expiresAt: PAST }),
      { path: 'expiresAt', code: 'too_small' },
    ],
    ['an expiry in the past (self-service)', () => session().post('/me/api-keys', { name: 'late', expiresAt: PAST }), { path: 'expiresAt', code: 'too_small' }],
    [
      'a NUL character',
      () => client(app, admin.key).post('/actors', { name: 'a\u0000b', type: 'organization' }),
      { path: 'name', code: 'invalid_format', params: { format: 'text' } },
    ],
    ['an unpaired surrogate', () => client(app, admin.key).patch(`/actors/${ids.actor}`, { name: '\ud800' }), { path: 'name', code: 'invalid_format' }],
    [
      'an unknown inherited role',
      () => client(app, admin.key).post('/roles', { code: 'heir', name: 'Heir', permissions: [], inherits: [NO_ROLE] }),
      { path: 'inherits', code: 'not_found', params: { ids: [NO_ROLE] } },
    ],
    [
      'an unknown role granted',
      () => client(app, admin.key).put(`/users/${ids.agent}/roles`, { roleIds: [NO_ROLE] }),
      { path: 'roleIds', code: 'not_found', params: { ids: [NO_ROLE] } },
    ],
    ['a type change', () => client(app, admin.key).patch(`/users/${ids.agent}`, { type: 'human' }), { path: 'type', code: 'immutable', params: {} }],
    [
      'a human linked to an actor',
      () => client(app, admin.key).patch(`/users/${ids.human}`, { linkedActorId: ids.actor }),
      { path: 'linkedActorId', code: 'invalid_value', params: {} },
    ],
    [
      'a wrong current password',
      () => session().post('/me/password', { currentPassword: 'not-it-at-all', newPassword: 'a-new-password-1234' }),
      { path: 'currentPassword', code: 'incorrect', params: {} },
    ],
    [
      'an unknown permission',
      () => client(app, admin.key).post('/roles', { code: 'odd', name: 'Odd', permissions: ['tensions:fly'] }),
      { path: 'permissions.0', code: 'invalid_value' },
    ],
    [
      'a bad Idempotency-Key',
      () => client(app, admin.key, { 'idempotency-key': '\u00e9' }).post('/actors', { name: 'x', type: 'organization' }),
      { path: 'Idempotency-Key', code: 'invalid_format' },
    ],
  ];

  it.each(cases)('%s', async (what, send, expected) => {
    const res = await send();
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    const items = expectCoded(res.body.errors, what);
    expect(
      items.find((i) => i.path === expected.path),
      `${what}: ${JSON.stringify(items)}`,
    ).toMatchObject({ code: expected.code, ...(expected.params ? { params: expected.params } : {}) });
  });
});

describe('GraphQL: every extensions.errors item has code and params', () => {
  const cases: [string, () => Promise<{ status: number; body: any }>][] = [
    ['a forged list cursor', () => client(app, admin.key).gql('{ tensions(cursor: "forged") { data { id } } }')],
    ['a forged feed cursor', () => client(app, admin.key).gql('{ events(after: "forged") { nextCursor } }')],
    [
      'an expiry in the past',
      () =>
        client(app, admin.key).gql('mutation($u: ID!, $i: CreateApiKeyInput!) { provisionApiKey(userId: $u, input: $i) { id } }', {
          u: ids.agent,
          i: { name: 'late', expiresAt: PAST },
        }),
    ],
    [
      'a NUL character',
      () => client(app, admin.key).gql('mutation($i: CreateActorInput!) { createActor(input: $i) { id } }', { i: { name: 'a\u0000b', type: 'organization' } }),
    ],
    [
      'an unknown inherited role',
      () =>
        client(app, admin.key).gql('mutation($i: CreateRoleInput!) { createRole(input: $i) { id } }', {
          i: { code: 'heir2', name: 'Heir', permissions: [], inherits: [NO_ROLE] },
        }),
    ],
    [
      'a wrong current password',
      () =>
        session().gql('mutation($i: ChangePasswordInput!) { changePassword(input: $i) }', {
          i: { currentPassword: 'not-it-at-all', newPassword: 'a-new-password-1234' },
        }),
    ],
  ];

  it.each(cases)('%s', async (what, send) => {
    const res = await send();
    const error = res.body.errors?.[0];
    expect(error?.extensions?.code, `${what}: ${JSON.stringify(res.body)}`).toBe('VALIDATION_FAILED');
    expectCoded(error.extensions.errors, what);
  });
});

describe('MCP: every structuredContent.errors / error.data.errors item has code and params', () => {
  async function rpc(body: unknown) {
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });
    return res.json();
  }
  const call = (name: string, args: unknown) => rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

  it.each([
    ['a forged list cursor', 'list_tensions', { cursor: 'forged' }],
    ['a forged actor-list cursor', 'list_actors', { cursor: 'forged' }],
    ['a forged feed cursor', 'list_events', { after: 'forged' }],
    ['a NUL character', 'create_actor', { name: 'a\u0000b', type: 'organization' }],
    ['an unpaired surrogate', 'sense_tension', { name: '\udfff', actorId: '00000000-0000-4000-8000-000000000000' }],
  ] as const)('%s', async (what, tool, args) => {
    const res = await call(tool, args);
    expect(res.result?.isError, `${what}: ${JSON.stringify(res)}`).toBe(true);
    expect(res.result.structuredContent.code).toBe('validation_failed');
    expectCoded(res.result.structuredContent.errors, what);
  });

  it('a tools/call whose arguments are not an object, or without a name: JSON-RPC -32602 with coded items', async () => {
    for (const params of [{ name: 'get_tension', arguments: 'x' }, { arguments: {} }, { name: 7, arguments: {} }]) {
      const res = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });
      expect(res.error?.code, JSON.stringify(res)).toBe(-32602);
      expectCoded(res.error.data.errors, JSON.stringify(params));
    }
  });
});
