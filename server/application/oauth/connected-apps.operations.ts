// The connected-apps operations (SPEC §13): the OAuth grants a person gave AI clients, their own (a
// password session) and another user's (users:read / users:write, the escalation rule). Every face is
// generated from these entries (server/application/operations.ts).
//
// MCP: none. Listing or revoking grants is the person's control over the AI clients themselves: a client
// that could list or revoke grants through /mcp would act on the very access it runs on, and an agent
// holding users:write could cut a person off their tools at machine speed. People do this on REST,
// GraphQL and the admin app.
import { defineOperation, NOT_FOR_AGENTS, type OperationEntry } from '../operations.js';
import { connectedAppListOutput, listMyConnectedApps, listUserConnectedApps, revokeMyConnectedApp, revokeUserConnectedApp } from './connected-apps.js';

const SELF = 'Self-service for a human signed in with a password (session cookie); API keys and agents get 403 session_required.';
const APP_PARAM = { appId: "The connected app's id (the OAuth grant's id, as listed)." };
const ON_GRANTS = 'Acts on the OAuth grants AI clients run on: administration of access stays with humans on REST and GraphQL.';

export const CONNECTED_APP_OPERATIONS: OperationEntry[] = [
  defineOperation({
    operation: 'me.listConnectedApps',
    run: (deps, ctx) => listMyConnectedApps(deps, ctx),
    output: connectedAppListOutput,
    errors: ['session_required'],
    rest: {
      method: 'get',
      path: '/me/connected-apps',
      status: 200,
      tag: 'me',
      input: 'none',
      auth: 'session',
      summary: 'List the AI clients I connected by OAuth',
      description: `My connected apps (OAuth grants for /mcp): client, scopes, created, last used. ${SELF}`,
    },
    graphql: {
      kind: 'query',
      field: 'myConnectedApps',
      type: 'ConnectedAppList',
      args: 'none',
      description: 'The AI clients I connected by OAuth (grants for /mcp), newest first. A password session only.',
    },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.selfService },
  }),
  defineOperation({
    operation: 'me.revokeConnectedApp',
    run: (deps, ctx, p) => revokeMyConnectedApp(deps, ctx, { id: p.appId }),
    errors: ['session_required', 'not_found'],
    audit: ['oauth.revoked'],
    rest: {
      method: 'delete',
      path: '/me/connected-apps/:appId',
      status: 204,
      tag: 'me',
      input: 'none',
      auth: 'session',
      pathParams: APP_PARAM,
      summary: 'Revoke one of my connected apps',
      description: `Revokes the grant and every token issued under it, from the very next request on every instance. ${SELF}`,
    },
    graphql: {
      kind: 'mutation',
      field: 'revokeMyConnectedApp',
      type: 'Boolean',
      args: 'none',
      description: 'Revokes one of my connected apps: the grant and every token issued under it stop on the next request.',
    },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.selfService },
  }),
  defineOperation({
    operation: 'users.listConnectedApps',
    run: (deps, ctx, p) => listUserConnectedApps(deps, ctx, { userId: p.id }),
    output: connectedAppListOutput,
    errors: ['user_not_found'],
    rest: {
      method: 'get',
      path: '/users/:id/connected-apps',
      status: 200,
      tag: 'users',
      input: 'none',
      summary: "List a user's connected apps (OAuth grants)",
      description: 'The AI clients the user connected by OAuth: client, scopes, created, last used.',
    },
    graphql: {
      kind: 'query',
      field: 'userConnectedApps',
      type: 'ConnectedAppList',
      args: 'none',
      params: { id: 'userId' },
      description: "A user's connected apps (OAuth grants for /mcp), newest first.",
    },
    mcp: { exposed: false, why: `${NOT_FOR_AGENTS.identityRead} ${ON_GRANTS}` },
  }),
  defineOperation({
    operation: 'users.revokeConnectedApp',
    run: (deps, ctx, p) => revokeUserConnectedApp(deps, ctx, { userId: p.id, id: p.appId }),
    errors: ['user_not_found', 'not_found', 'escalation_denied'],
    audit: ['oauth.revoked'],
    rest: {
      method: 'delete',
      path: '/users/:id/connected-apps/:appId',
      status: 204,
      tag: 'users',
      input: 'none',
      pathParams: APP_PARAM,
      summary: "Revoke a user's connected app",
      description:
        'Revokes the grant and every token issued under it, from the very next request on every instance. Acting on a user who holds permissions you do not is 403 escalation_denied.',
    },
    graphql: {
      kind: 'mutation',
      field: 'revokeUserConnectedApp',
      type: 'Boolean',
      args: 'none',
      params: { id: 'userId' },
      description: "Revokes a user's connected app (the escalation rule applies): its tokens stop on the next request.",
    },
    mcp: { exposed: false, why: `${NOT_FOR_AGENTS.identityWrite} ${ON_GRANTS}` },
  }),
];
