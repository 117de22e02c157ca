// Authorization sweep, generated from OPERATION_PERMISSIONS: on every face that serves an operation,
// no credentials → 401, every permission but the needed one → 403 naming it, only the needed one → let in;
// and for every operation acting on a user, a more privileged target → 403 escalation_denied, a peer → done.
import { seedGrant } from '../../support/oauth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getNamedType, isObjectType } from 'graphql';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, systemCtx, unwrap, type SeededUser } from '../../support/clients.js';
import { createRole } from '../../../server/application/roles/roles.js';
import { mcpHttpClient } from '../../support/mcp.js';
import {
  fillPath,
  GRAPHQL_FIELDS_WITHOUT_OPERATION,
  mountedRoutes,
  OPERATION_SURFACES,
  REST_ROUTES_WITHOUT_OPERATION,
  USER_READS_NOT_LIMITED,
  USER_TARGET_OPERATIONS,
  userTargetType,
  type OperationSurface,
} from '../../support/operations.js';
import { OPERATION_PERMISSIONS, type Operation } from '../../../server/application/permission-table.js';
import { PERMISSION_CATALOGUE, type Permission } from '../../../server/domain/permissions.js';
import { restRouter } from '../../../server/rest/router.js';
import { TOOLS } from '../../../server/mcp/tools.js';
import { schema } from '../../../schema/index.js';

const OPERATIONS = Object.keys(OPERATION_PERMISSIONS) as Operation[];
const GATED = OPERATIONS.filter((op) => OPERATION_PERMISSIONS[op] !== null);
const tally = { requests: 0, operations: OPERATIONS.length, fiveHundreds: 0 };

let app: TestApp;
let nobody: SeededUser;
/** per permission: a user holding every other permission, and one holding only it */
const allBut = new Map<Permission, SeededUser>();
const onlyThis = new Map<Permission, SeededUser>();

beforeAll(async () => {
  app = await startTestApp();
  nobody = await seedUserWithKey(app, { grants: [] });
  for (const p of PERMISSION_CATALOGUE) {
    allBut.set(p, await seedUserWithKey(app, { grants: PERMISSION_CATALOGUE.filter((g) => g !== p) }));
    onlyThis.set(p, await seedUserWithKey(app, { grants: [p] }));
  }
});
afterAll(async () => {
  console.log(`authz-sweep: ${tally.operations} operations, ${tally.requests} requests sent, 5xx seen: ${tally.fiveHundreds}`);
  await app?.close();
});

function count(status: number) {
  tally.requests++;
  if (status >= 500) tally.fiveHundreds++;
}

async function rest(surface: NonNullable<OperationSurface['rest']>, headers: Record<string, string>, ids?: { id: string; keyId: string }) {
  const res = await fetch(`${app.url}/api/v1${fillPath(surface.path, ids)}`, {
    method: surface.method,
    headers: { ...headers, ...(surface.body ? { 'content-type': 'application/json' } : {}) },
    body: surface.body ? JSON.stringify(surface.body) : undefined,
  });
  count(res.status);
  const text = await res.text();
  // JSON answers are parsed; a download (an export's CSV or NDJSON) is kept as text
  const json = /^application\/(problem\+)?json/.test(res.headers.get('content-type') ?? '');
  return { status: res.status, headers: res.headers, body: text ? (json ? JSON.parse(text) : text) : null };
}

async function gql(surface: NonNullable<OperationSurface['graphql']>, key?: string, ids?: { id: string; keyId: string }) {
  const variables = ids
    ? {
        ...surface.variables,
        id: ids.id,
        ...('keyId' in surface.variables ? { keyId: ids.keyId } : {}),
        ...('appId' in surface.variables ? { appId: ids.keyId } : {}),
      }
    : surface.variables;
  const res = await client(app, key).gql(surface.document, variables);
  count(res.status);
  return res;
}

describe('the operation map covers every face', () => {
  it('maps every permission-table entry, and every mapped permission is the table’s', () => {
    expect(Object.keys(OPERATION_SURFACES).sort()).toEqual([...OPERATIONS].sort());
  });

  it('maps every mounted REST route to an operation (or to the short list of operation-free routes)', () => {
    const mapped = new Set<string>([
      ...OPERATIONS.flatMap((op) => (OPERATION_SURFACES[op].rest ? [`${OPERATION_SURFACES[op].rest.method} ${OPERATION_SURFACES[op].rest.path}`] : [])),
      ...REST_ROUTES_WITHOUT_OPERATION.map((r) => `${r.method} ${r.path}`),
    ]);
    const mounted = mountedRoutes(restRouter(app.deps));
    expect(mounted.length).toBeGreaterThan(30);
    expect(mounted.filter((r) => !mapped.has(r))).toEqual([]);
    expect([...mapped].filter((r) => !mounted.includes(r))).toEqual([]);
  });

  it('maps every GraphQL query and mutation field', () => {
    const fields = [...Object.keys(schema.getQueryType()!.getFields()), ...Object.keys(schema.getMutationType()!.getFields())];
    const mapped = new Set<string>([
      ...OPERATIONS.flatMap((op) => (OPERATION_SURFACES[op].graphql ? [OPERATION_SURFACES[op].graphql.field] : [])),
      ...GRAPHQL_FIELDS_WITHOUT_OPERATION,
    ]);
    expect(fields.filter((f) => !mapped.has(f))).toEqual([]);
    // A field mapped to the wrong kind would not run at all: check kinds and that objects have a selection.
    for (const op of OPERATIONS) {
      const g = OPERATION_SURFACES[op].graphql;
      if (!g) continue;
      const type = g.kind === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
      const field = type.getFields()[g.field];
      expect(field, `${op}: ${g.kind} ${g.field}`).toBeDefined();
      expect(isObjectType(getNamedType(field.type)), `${op}: selection of ${g.field}`).toBe(/\{[^}]*\{/.test(g.document));
    }
  });

  it('maps every MCP tool to the operation it declares', () => {
    for (const tool of TOOLS) {
      const op = OPERATIONS.find((o) => OPERATION_SURFACES[o].mcp?.tool === tool.name);
      expect(op, `tool ${tool.name}`).toBeDefined();
      // whoami needs no permission; it stands for me.get on MCP
      expect(tool.operation ?? 'me.get').toBe(op);
    }
    const mappedTools = OPERATIONS.flatMap((o) => (OPERATION_SURFACES[o].mcp ? [OPERATION_SURFACES[o].mcp.tool] : []));
    expect(mappedTools.sort()).toEqual(TOOLS.map((t) => t.name).sort());
  });
});

describe('REST', () => {
  it.each(OPERATIONS.filter((op) => OPERATION_SURFACES[op].rest))('%s: anonymous, forged and unknown credentials → 401 with WWW-Authenticate', async (op) => {
    const surface = OPERATION_SURFACES[op].rest!;
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer mk_notakey' },
      { authorization: 'Basic YWRtaW46YWRtaW4=' },
      { authorization: `Bearer ${nobody.key.slice(0, -1)}${nobody.key.endsWith('A') ? 'B' : 'A'}` },
      { cookie: 'session=eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', 'x-csrf-protection': '1' },
    ];
    for (const headers of attempts) {
      const res = await rest(surface, headers);
      expect(res.status, `${surface.method} ${surface.path} with ${JSON.stringify(headers)}`).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.body.code).toBe('unauthenticated');
    }
  });

  it.each(GATED.filter((op) => OPERATION_SURFACES[op].rest))(
    '%s: every permission but the needed one → 403 forbidden naming it; only it → let in',
    async (op) => {
      const needed = OPERATION_PERMISSIONS[op] as Permission;
      const surface = OPERATION_SURFACES[op].rest!;
      const denied = await rest(surface, { authorization: `Bearer ${allBut.get(needed)!.key}` });
      expect(denied.status, `${surface.method} ${surface.path}`).toBe(403);
      expect(denied.body).toMatchObject({ code: 'forbidden', missingPermission: needed, status: 403 });
      const let_in = await rest(surface, { authorization: `Bearer ${onlyThis.get(needed)!.key}` });
      expect(let_in.status).not.toBe(401);
      expect(let_in.body?.code).not.toBe('forbidden');
      expect(let_in.status).toBeLessThan(500);
    },
  );

  it.each(OPERATIONS.filter((op) => OPERATION_PERMISSIONS[op] === null && OPERATION_SURFACES[op].rest))(
    '%s needs no permission: a caller with none is not refused as forbidden',
    async (op) => {
      const res = await rest(OPERATION_SURFACES[op].rest!, { authorization: `Bearer ${nobody.key}` });
      expect(res.body?.code).not.toBe('forbidden');
      expect(res.status).not.toBe(401);
    },
  );
});

describe('GraphQL', () => {
  const served = OPERATIONS.filter((op) => OPERATION_SURFACES[op].graphql);

  it.each(served)('%s: no credentials → UNAUTHENTICATED; an unknown key → HTTP 401 with WWW-Authenticate', async (op) => {
    const surface = OPERATION_SURFACES[op].graphql!;
    const anonymous = await gql(surface);
    expect(anonymous.body.errors?.[0]?.extensions?.code, surface.field).toBe('UNAUTHENTICATED');
    expect(anonymous.body.data?.[surface.field] ?? null).toBeNull();
    const unknown = await gql(surface, `mk_${'0'.repeat(49)}`);
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer');
    expect(unknown.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it.each(served.filter((op) => OPERATION_PERMISSIONS[op] !== null))('%s: every permission but the needed one → FORBIDDEN; only it → let in', async (op) => {
    const needed = OPERATION_PERMISSIONS[op] as Permission;
    const surface = OPERATION_SURFACES[op].graphql!;
    const denied = await gql(surface, allBut.get(needed)!.key);
    expect(denied.body.errors?.[0]?.extensions, surface.field).toMatchObject({ code: 'FORBIDDEN', missingPermission: needed });
    const allowed = await gql(surface, onlyThis.get(needed)!.key);
    const codes = (allowed.body.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code);
    expect(codes).not.toContain('FORBIDDEN');
    expect(codes).not.toContain('UNAUTHENTICATED');
    expect(codes).not.toContain('INTERNAL');
  });
});

describe('MCP', () => {
  const served = OPERATIONS.filter((op) => OPERATION_SURFACES[op].mcp);
  // Two clients per user: the SDK client validates every structuredContent against the output schema of
  // a tool it has listed, error results included, so calls go through a client that never lists.
  const clients = new Map<string, Client>();
  const mcpAs = async (user: SeededUser, role: 'list' | 'call') => {
    const k = `${role}:${user.key}`;
    if (!clients.has(k)) clients.set(k, await mcpHttpClient(app, user.key));
    return clients.get(k)!;
  };
  afterAll(async () => {
    for (const c of clients.values()) await c.close();
  });

  it.each(served)('%s: a tools/call without a key or with an unknown key → 401 with WWW-Authenticate', async (op) => {
    const { tool, args } = OPERATION_SURFACES[op].mcp!;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } });
    const auths: Record<string, string>[] = [{}, { authorization: `Bearer mk_${'1'.repeat(49)}` }, { authorization: 'Bearer ' }];
    for (const auth of auths) {
      const res = await fetch(`${app.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth },
        body,
      });
      count(res.status);
      expect(res.status).toBe(401);
      // SPEC §13: the challenge names the protected-resource metadata, so an OAuth client can find the server
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/);
      expect((await res.json()).error.data.code).toBe('unauthenticated');
    }
  });

  it.each(served.filter((op) => OPERATION_PERMISSIONS[op] !== null))(
    '%s: every permission but the needed one → forbidden and unlisted; only it → listed and let in',
    async (op) => {
      const needed = OPERATION_PERMISSIONS[op] as Permission;
      const { tool, args } = OPERATION_SURFACES[op].mcp!;
      const denied = await (await mcpAs(allBut.get(needed)!, 'call')).callTool({ name: tool, arguments: args });
      tally.requests++;
      expect(denied.isError).toBe(true);
      expect(denied.structuredContent).toMatchObject({ code: 'forbidden', missingPermission: needed });
      expect((await (await mcpAs(allBut.get(needed)!, 'list')).listTools()).tools.map((t) => t.name)).not.toContain(tool);

      expect((await (await mcpAs(onlyThis.get(needed)!, 'list')).listTools()).tools.map((t) => t.name)).toContain(tool);
      const allowed = await (await mcpAs(onlyThis.get(needed)!, 'call')).callTool({ name: tool, arguments: args });
      tally.requests++;
      expect((allowed.structuredContent as { code?: string } | undefined)?.code).not.toBe('forbidden');
    },
  );
});

describe('acting on a more privileged user (SPEC §2 "No escalation")', () => {
  // The caller holds what every user operation needs; the targets hold one permission more, or `*`.
  const CALLER_GRANTS: Permission[] = ['users:read', 'users:write'];
  const STRONGER = [
    { label: 'one permission more', grants: [...CALLER_GRANTS, 'tensions:read'], missing: ['tensions:read'] },
    { label: '*', grants: ['*'], missing: ['*'] },
  ];
  const PEERS = [
    { label: 'the same permissions', grants: CALLER_GRANTS },
    { label: 'fewer permissions', grants: ['users:read'] },
  ];
  let caller: SeededUser;
  beforeAll(async () => {
    caller = await seedUserWithKey(app, { grants: CALLER_GRANTS });
  });

  /** Everything an operation on a user could change: the row, its roles, its keys. */
  async function snapshot(userId: string) {
    const em = app.em();
    const [user] = await em.execute('select email, name, status, password_hash, updated_at, version from users where id = ?', [userId]);
    const roles = await em.execute('select role_id from user_roles where user_id = ? order by role_id', [userId]);
    const keys = await em.execute('select id, name, revoked_at, expires_at from api_keys where user_id = ? order by id', [userId]);
    const grants = await em.execute(`select id from oauth_store where kind = 'Grant' and user_id = ? order by id`, [userId]);
    return { user, roles, keys, grants };
  }

  it('covers every operation on a user; none of them is an MCP tool or open to a read-only caller', () => {
    expect([...USER_TARGET_OPERATIONS].sort()).toEqual([
      'users.deactivate',
      'users.provisionApiKey',
      'users.reactivate',
      'users.resetMfa',
      'users.resetPassword',
      'users.revokeApiKey',
      'users.revokeConnectedApp',
      'users.rotateApiKey',
      'users.setRoles',
      'users.update',
    ]);
    // An MCP tool acting on a user would need a case here: there is none (list_users only reads).
    expect(USER_TARGET_OPERATIONS.filter((op) => OPERATION_SURFACES[op].mcp)).toEqual([]);
    for (const op of USER_TARGET_OPERATIONS) expect(CALLER_GRANTS).toContain(OPERATION_PERMISSIONS[op]);
  });

  describe.each(STRONGER)('a target holding $label', ({ grants, missing }) => {
    it.each(USER_TARGET_OPERATIONS)('%s: REST → 403 escalation_denied, nothing changes', async (op) => {
      const target = await seedUserWithKey(app, { type: userTargetType(op), grants });
      // a grant to revoke, so that a missing check would answer 204 and delete it, not 404
      if (op === 'users.revokeConnectedApp') await seedGrant(app, target.userId, target.keyId);
      const before = await snapshot(target.userId);
      const res = await rest(OPERATION_SURFACES[op].rest!, { authorization: `Bearer ${caller.key}` }, { id: target.userId, keyId: target.keyId });
      expect(res.status, op).toBe(403);
      expect(res.body).toMatchObject({ code: 'escalation_denied', status: 403, missingPermissions: missing });
      expect(await snapshot(target.userId)).toEqual(before);
    });

    it.each(USER_TARGET_OPERATIONS.filter((op) => OPERATION_SURFACES[op].graphql))('%s: GraphQL → ESCALATION_DENIED, nothing changes', async (op) => {
      const target = await seedUserWithKey(app, { type: userTargetType(op), grants });
      if (op === 'users.revokeConnectedApp') await seedGrant(app, target.userId, target.keyId);
      const before = await snapshot(target.userId);
      const surface = OPERATION_SURFACES[op].graphql!;
      const res = await gql(surface, caller.key, { id: target.userId, keyId: target.keyId });
      expect(res.body.errors?.[0]?.extensions, surface.field).toMatchObject({ code: 'ESCALATION_DENIED', missingPermissions: missing });
      expect(res.body.data?.[surface.field] ?? null).toBeNull();
      expect(await snapshot(target.userId)).toEqual(before);
    });
  });

  // Reading is not limited by the rule (SPEC §2): the user and its key list (metadata) are served whoever holds more.
  describe.each(STRONGER)('reading a target holding $label', ({ grants }) => {
    it.each(USER_READS_NOT_LIMITED)('%s: REST → 200, GraphQL → data', async (op) => {
      const target = await seedUserWithKey(app, { type: userTargetType(op), grants });
      const res = await rest(OPERATION_SURFACES[op].rest!, { authorization: `Bearer ${caller.key}` }, { id: target.userId, keyId: target.keyId });
      expect(res.status, `${op}: ${JSON.stringify(res.body)}`).toBe(200);
      const surface = OPERATION_SURFACES[op].graphql;
      if (!surface) return;
      const gqlRes = await gql(surface, caller.key, { id: target.userId, keyId: target.keyId });
      expect(gqlRes.body.errors, surface.field).toBeUndefined();
      expect(gqlRes.body.data?.[surface.field]).toBeTruthy();
    });
  });

  // Positive controls: the check is not vacuous, the same caller and request succeed on a peer.
  describe.each(PEERS)('a target holding $label', ({ grants }) => {
    it.each(USER_TARGET_OPERATIONS)('%s: REST → done', async (op) => {
      const target = await seedUserWithKey(app, { type: userTargetType(op), grants });
      if (op === 'users.revokeConnectedApp') await seedGrant(app, target.userId, target.keyId);
      const res = await rest(OPERATION_SURFACES[op].rest!, { authorization: `Bearer ${caller.key}` }, { id: target.userId, keyId: target.keyId });
      expect(res.status, `${op}: ${JSON.stringify(res.body)}`).toBeGreaterThanOrEqual(200);
      expect(res.status).toBeLessThan(300);
    });

    it.each(USER_TARGET_OPERATIONS.filter((op) => OPERATION_SURFACES[op].graphql))('%s: GraphQL → done', async (op) => {
      const target = await seedUserWithKey(app, { type: userTargetType(op), grants });
      if (op === 'users.revokeConnectedApp') await seedGrant(app, target.userId, target.keyId);
      const surface = OPERATION_SURFACES[op].graphql!;
      const res = await gql(surface, caller.key, { id: target.userId, keyId: target.keyId });
      expect(res.body.errors, surface.field).toBeUndefined();
      expect(res.body.data?.[surface.field]).toBeTruthy();
    });
  });
});

describe('editing or deleting a role held by a stronger user (SPEC §2: a role edit acts on its holders)', () => {
  // The caller holds what role edits need; the role's holder holds one permission more, or `*`.
  const CALLER_GRANTS: Permission[] = ['roles:read', 'roles:write'];
  const STRONGER = [
    { label: 'one permission more', grants: [...CALLER_GRANTS, 'tensions:read'], missing: ['tensions:read'] },
    { label: '*', grants: ['*'], missing: ['*'] },
  ];
  const ROLE_OPERATIONS: Operation[] = ['roles.update', 'roles.delete'];
  let caller: SeededUser;
  beforeAll(async () => {
    caller = await seedUserWithKey(app, { grants: CALLER_GRANTS });
  });

  async function roleSnapshot(roleId: string) {
    const em = app.em();
    const [row] = await em.execute('select code, name, permissions, version, updated_at from roles where id = ?', [roleId]);
    const inherits = await em.execute('select inherited_role_id from role_inherits where role_id = ? order by 1', [roleId]);
    const holders = await em.execute('select user_id from user_roles where role_id = ? order by 1', [roleId]);
    return { row, inherits, holders };
  }

  it('covers every operation that edits or deletes a role, on REST and GraphQL, none on MCP', () => {
    expect(
      OPERATIONS.filter((op) => /^\/roles\/:id$/.test(OPERATION_SURFACES[op].rest?.path ?? '') && OPERATION_SURFACES[op].rest?.method !== 'GET').sort(),
    ).toEqual([...ROLE_OPERATIONS].sort());
    for (const op of ROLE_OPERATIONS) {
      expect(OPERATION_SURFACES[op].graphql, op).toBeTruthy();
      expect(OPERATION_SURFACES[op].mcp, op).toBeNull();
    }
  });

  describe.each(STRONGER)('a role whose holder holds $label', ({ grants, missing }) => {
    it.each(ROLE_OPERATIONS)('%s: REST → 403 escalation_denied, the role unchanged', async (op) => {
      const holder = await seedUserWithKey(app, { grants });
      const before = await roleSnapshot(holder.roleId);
      const surface = OPERATION_SURFACES[op].rest!;
      // An edit is tried as the operation map's rename and as the reviewer's demotion (emptying the role).
      const variants = op === 'roles.update' ? [surface, { ...surface, body: { permissions: [] } }] : [surface];
      for (const variant of variants) {
        const res = await rest(variant, { authorization: `Bearer ${caller.key}` }, { id: holder.roleId, keyId: holder.keyId });
        expect(res.status, `${op} ${JSON.stringify(variant.body)}`).toBe(403);
        expect(res.body).toMatchObject({ code: 'escalation_denied', status: 403, missingPermissions: missing });
      }
      expect(await roleSnapshot(holder.roleId)).toEqual(before);
    });

    it.each(ROLE_OPERATIONS)('%s: GraphQL → ESCALATION_DENIED, the role unchanged', async (op) => {
      const holder = await seedUserWithKey(app, { grants });
      const before = await roleSnapshot(holder.roleId);
      const surface = OPERATION_SURFACES[op].graphql!;
      const variants = op === 'roles.update' ? [surface, { ...surface, variables: { ...surface.variables, input: { permissions: [] } } }] : [surface];
      for (const variant of variants) {
        const res = await gql(variant, caller.key, { id: holder.roleId, keyId: holder.keyId });
        expect(res.body.errors?.[0]?.extensions, `${surface.field} ${JSON.stringify(variant.variables)}`).toMatchObject({
          code: 'ESCALATION_DENIED',
          missingPermissions: missing,
        });
        expect(res.body.data?.[surface.field] ?? null).toBeNull();
      }
      expect(await roleSnapshot(holder.roleId)).toEqual(before);
    });
  });

  // Positive controls: a role carrying no more than the caller holds (and held by no one, so delete can succeed).
  it.each(ROLE_OPERATIONS)('%s: a role within the caller’s permissions → done on REST and GraphQL', async (op) => {
    for (const face of ['rest', 'graphql'] as const) {
      const r = unwrap(
        await createRole(app.deps, systemCtx(), {
          code: `peer-${face}-${op.replace('.', '-')}-${Math.random().toString(36).slice(2, 8)}`,
          name: 'Peer role',
          permissions: ['roles:read'],
        }),
        'role',
      );
      if (face === 'rest') {
        const res = await rest(OPERATION_SURFACES[op].rest!, { authorization: `Bearer ${caller.key}` }, { id: r.id, keyId: r.id });
        expect(res.status, `${op}: ${JSON.stringify(res.body)}`).toBeGreaterThanOrEqual(200);
        expect(res.status).toBeLessThan(300);
      } else {
        const surface = OPERATION_SURFACES[op].graphql!;
        const res = await gql(surface, caller.key, { id: r.id, keyId: r.id });
        expect(res.body.errors, surface.field).toBeUndefined();
        expect(res.body.data?.[surface.field]).toBeTruthy();
      }
    }
  });
});
