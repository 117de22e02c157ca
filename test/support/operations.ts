// Every operation of the permission table on each face that serves it: REST route, GraphQL field, MCP
// tool, each with a well-shaped input. The authorization sweep and the fuzz tests walk this data, and
// assert it covers the permission table, the mounted REST routes, the schema and the tool registry.
import type { Operation } from '../../server/application/permission-table.js';
import { TENSION_COMMANDS, type TensionCommandEntry, type TensionCommandOperation } from '../../server/application/tensions/registry.js';
import { entryPathParams, inputOptional, type OperationEntry } from '../../server/application/operations.js';
import { OPERATIONS } from '../../server/application/registry.js';
import { graphqlShapeOf, inputJsonOf } from '../../schema/zod-input.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RestSurface {
  method: Method;
  /** Express-style path under /api/v1; `:id` and `:keyId` are filled in by `fillPath` */
  path: string;
  body?: Record<string, unknown>;
}

export interface GraphqlSurface {
  kind: 'query' | 'mutation';
  field: string;
  document: string;
  variables: Record<string, unknown>;
}

export interface McpSurface {
  tool: string;
  args: Record<string, unknown>;
}

export interface OperationSurface {
  rest: RestSurface | null;
  graphql: GraphqlSurface | null;
  mcp: McpSurface | null;
}

/** Ids that exist nowhere: an authorization check must answer before any lookup. */
export const GHOST_ID = '7d3f1c52-5b1e-4c6a-9d0e-2f4b8a6c1e90';
export const GHOST_KEY_ID = '0b9e2d61-8c4f-4a37-b1d2-6e5f7a8c9d01';

export function fillPath(path: string, ids: { id?: string; keyId?: string } = {}): string {
  return path
    .replace(':keyId', ids.keyId ?? GHOST_KEY_ID)
    .replace(':appId', ids.keyId ?? GHOST_KEY_ID)
    .replace(':id', ids.id ?? GHOST_ID);
}

const q = (field: string, args: string, selection: string, decl = '', variables: Record<string, unknown> = {}): GraphqlSurface => ({
  kind: 'query',
  field,
  document: `query${decl ? `(${decl})` : ''} { ${field}${args ? `(${args})` : ''} ${selection} }`,
  variables,
});
const m = (field: string, args: string, selection: string, decl: string, variables: Record<string, unknown>): GraphqlSurface => ({
  kind: 'mutation',
  field,
  document: `mutation${decl ? `(${decl})` : ''} { ${field}${args ? `(${args})` : ''} ${selection} }`,
  variables,
});

const PAYLOAD = '{ tension { id version } event { version } }';

/** A tension command's surfaces, generated from its registry entry. */
function tensionCommand(entry: TensionCommandEntry): OperationSurface {
  const body = entry.example;
  const inputType = `${entry.graphql.inputType}${entry.input.safeParse({}).success ? '' : '!'}`;
  const withId = !entry.creates;
  return {
    rest: {
      method: entry.rest.method.toUpperCase() as Method,
      path: entry.rest.path,
      ...(entry.rest.input === 'body' && Object.keys(body).length ? { body } : {}),
    },
    graphql: withId
      ? m(entry.graphql.field, 'id: $id, input: $input', PAYLOAD, `$id: ID!, $input: ${inputType}`, { id: GHOST_ID, input: body })
      : m(entry.graphql.field, 'input: $input', PAYLOAD, `$input: ${inputType}`, { input: body }),
    mcp: { tool: entry.mcp.name, args: withId ? { id: GHOST_ID, ...body } : body },
  };
}

/** Every registry command's surfaces, by its operation. */
const TENSION_COMMAND_SURFACES = Object.fromEntries(TENSION_COMMANDS.map((e) => [e.operation, tensionCommand(e)])) as Record<
  TensionCommandOperation,
  OperationSurface
>;

const GHOST_IDS: Record<string, string> = { id: GHOST_ID, keyId: GHOST_KEY_ID, appId: GHOST_KEY_ID, deliveryId: GHOST_KEY_ID };

/** The GraphQL type of a flat argument, as the registry's loop declares it (schema/operations.ts). */
function flatArgType(entry: OperationEntry, field: string): string {
  const json = inputJsonOf((entry.graphql?.input ?? entry.input)!);
  const shape = graphqlShapeOf(json.properties![field]);
  const name = typeof shape.named === 'string' ? shape.named : (shape.named as { name: string }).name;
  const required = (json.required ?? []).includes(field) && !shape.nullable ? '!' : '';
  return shape.list ? `[${name}!]${required}` : `${name}${required}`;
}

/**
 * A registry entry's surfaces, generated from it: the REST route with its example body, the GraphQL field
 * with its arguments (path ids as `$id`/`$keyId` variables, whatever GraphQL names the argument) and the
 * MCP tool when it is exposed.
 */
function registrySurface(entry: OperationEntry): OperationSurface {
  const params = entryPathParams(entry);
  const example = entry.example ?? {};
  const gql = entry.graphql;
  let graphql: GraphqlSurface | null = null;
  if (gql) {
    const decl = params.map((p) => `$${p}: ID!`);
    const args = params.map((p) => `${gql.params?.[p] ?? p}: $${p}`);
    const variables: Record<string, unknown> = Object.fromEntries(params.map((p) => [p, GHOST_IDS[p]]));
    const given = entry.graphqlExample ?? example;
    if (gql.args === 'input' && Object.keys(given).length) {
      decl.push(`$input: ${gql.inputType}${(entry.rest?.bodyRequired ?? !inputOptional(entry)) ? '!' : ''}`);
      args.push('input: $input');
      variables.input = given;
    }
    if (gql.args === 'flat') {
      for (const [k, v] of Object.entries(given)) {
        decl.push(`$${k}: ${flatArgType(entry, k)}`);
        args.push(`${k}: $${k}`);
        variables[k] = v;
      }
    }
    const selection = gql.type === 'Boolean' || gql.type.startsWith('[') ? '' : '{ __typename }';
    graphql = (gql.kind === 'query' ? q : m)(gql.field, args.join(', '), selection, decl.join(', '), variables);
  }
  const mcp = entry.mcp.exposed === false ? null : { tool: entry.mcp.name, args: { ...Object.fromEntries(params.map((p) => [p, GHOST_IDS[p]])), ...example } };
  return {
    rest: entry.rest
      ? {
          method: entry.rest.method.toUpperCase() as Method,
          path: entry.rest.path,
          ...(entry.rest.input === 'body' && Object.keys(example).length ? { body: example } : {}),
        }
      : null,
    graphql,
    mcp,
  };
}

/** Every registry entry's surfaces, by its operation. */
const REGISTRY_SURFACES = Object.fromEntries(OPERATIONS.map((e) => [e.operation, registrySurface(e)])) as Record<
  (typeof OPERATIONS)[number]['operation'],
  OperationSurface
>;

export const OPERATION_SURFACES: Record<Operation, OperationSurface> = {
  ...REGISTRY_SURFACES,
  'tensions.list': {
    rest: { method: 'GET', path: '/tensions' },
    graphql: q('tensions', '', '{ data { id } }'),
    mcp: { tool: 'list_tensions', args: {} },
  },
  'tensions.get': {
    rest: { method: 'GET', path: '/tensions/:id' },
    graphql: q('tension', 'id: $id', '{ id }', '$id: ID!', { id: GHOST_ID }),
    mcp: { tool: 'get_tension', args: { id: GHOST_ID } },
  },
  'tensions.history': {
    rest: { method: 'GET', path: '/tensions/:id/history' },
    graphql: q('tensionHistory', 'id: $id', '{ data { version } }', '$id: ID!', { id: GHOST_ID }),
    mcp: { tool: 'get_tension_history', args: { id: GHOST_ID } },
  },
  'tensions.changes': {
    rest: { method: 'GET', path: '/tensions/:id/changes' },
    graphql: q('tensionChanges', 'id: $id, from: 1', '{ from to changes { field } }', '$id: ID!', { id: GHOST_ID }),
    mcp: { tool: 'get_tension_changes', args: { id: GHOST_ID, from: 1 } },
  },
  ...TENSION_COMMAND_SURFACES,
  'projections.rebuild': {
    // SPEC §3: the CLI and GraphQL only.
    rest: null,
    graphql: m('rebuildTensionProjection', 'dryRun: true', '{ streams }', '', {}),
    mcp: null,
  },
  // exports (issue 36): REST only, a download a script or the admin app's button takes
  'tensions.export': { rest: { method: 'GET', path: '/export/tensions' }, graphql: null, mcp: null },
  'actors.export': { rest: { method: 'GET', path: '/export/actors' }, graphql: null, mcp: null },
  'users.export': { rest: { method: 'GET', path: '/export/users' }, graphql: null, mcp: null },
  'audit.export': { rest: { method: 'GET', path: '/export/audit' }, graphql: null, mcp: null },
  'tensions.count': { rest: null, graphql: q('tensionsTotal', '', '{ count exact }'), mcp: null },
  'dashboard.tensions': { rest: null, graphql: q('dashboardTensions', 'weeks: 4', '{ byState { state count } }'), mcp: null },
  'dashboard.keyUsage': { rest: null, graphql: q('dashboardKeyUsage', 'days: 7', '{ days }'), mcp: null },
  'dashboard.signInFailures': { rest: null, graphql: q('dashboardSignInFailures', 'days: 7', '{ days { day } }'), mcp: null },
  'dashboard.feedHealth': { rest: null, graphql: q('dashboardFeedHealth', '', '{ headPosition }'), mcp: null },
  'dashboard.webhookHealth': { rest: null, graphql: q('dashboardWebhookHealth', '', '{ endpoints }'), mcp: null },
};

/**
 * Operations on one user that SPEC §2 leaves open to any caller with the permission ("Reading is not limited";
 * "Listing a user's keys (metadata only) is reading").
 */
export const USER_READS_NOT_LIMITED: readonly Operation[] = ['users.get', 'users.listApiKeys', 'users.listConnectedApps'];

/**
 * Every operation that acts on one existing user or its keys: those whose REST path starts `/users/:id`,
 * but the open reads. Derived, so a new route under a user joins the escalation sweep by itself.
 */
export const USER_TARGET_OPERATIONS = (Object.keys(OPERATION_SURFACES) as Operation[]).filter(
  (op) => /^\/users\/:id(\/|$)/.test(OPERATION_SURFACES[op].rest?.path ?? '') && !USER_READS_NOT_LIMITED.includes(op),
);

/** The user type an operation's target must have to succeed (the rest work on agents). */
export function userTargetType(op: Operation): 'human' | 'agent' {
  return op === 'users.resetPassword' || op === 'users.resetMfa' ? 'human' : 'agent';
}

/** REST routes that belong to no permission-table entry, and why. */
export const REST_ROUTES_WITHOUT_OPERATION = [
  { method: 'POST', path: '/auth/login', why: 'public: it is how a session starts' },
  { method: 'POST', path: '/auth/login/mfa', why: 'public: the second step of a sign-in (SPEC §16), with the mfaToken of the first' },
  { method: 'POST', path: '/auth/logout', why: 'any session: ends the caller’s own session' },
  { method: 'GET', path: '/auth/oidc', why: 'public: whether the sign-in page offers single sign-on (SPEC §16)' },
  { method: 'GET', path: '/auth/oidc/start', why: 'public: a browser navigation that starts a single sign-on (SPEC §16)' },
  {
    method: 'GET',
    path: '/auth/oidc/callback',
    why: 'public: the OpenID provider sends the browser back here; asserted in test/int/identity/oidc-sso.int.test.ts and test/e2e/oidc-sso.e2e.test.ts',
  },
  { method: 'GET', path: '/openapi.json', why: 'public: the API description' },
  { method: 'GET', path: '/docs', why: 'public: the API description, to read and try (Swagger UI)' },
  { method: 'GET', path: '/docs/reference', why: 'public: the API description as one static page' },
  {
    method: 'GET',
    path: '/events/stream',
    why: 'events.list as a never-ending stream (SSE): its 401/403/let-in are asserted in test/int/events/stream.int.test.ts',
  },
] as const;

/** GraphQL fields that belong to no permission-table entry. */
export const GRAPHQL_FIELDS_WITHOUT_OPERATION = ['health', 'login', 'loginMfa', 'logout'] as const;

/** Lists `METHOD /path` of every route mounted in an Express router, nested routers included. */
export function mountedRoutes(router: unknown): string[] {
  const out: string[] = [];
  const walk = (stack: unknown[]) => {
    for (const layer of stack as { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: unknown[] } }[]) {
      if (layer.route) {
        for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') out.push(`${method.toUpperCase()} ${layer.route.path}`);
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((router as { stack: unknown[] }).stack);
  return out;
}
