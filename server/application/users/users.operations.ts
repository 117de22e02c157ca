// The users area's operations: user administration and agent users' API keys. Every face (REST, OpenAPI,
// GraphQL, MCP, the authorization sweep) is generated from these entries (server/application/operations.ts).
//
// MCP: only `users.list`, narrowed to id, name, type and status (server/mcp/users.tools.ts), so an agent
// can choose a tension lead. Every write here creates, changes or revokes a user, its roles or its keys:
// an agent with users:write could provision itself keys or grant roles, so they are not tools. Reading one
// user or its keys' metadata helps no tension work, so those are not tools either.
import { pageOutput } from '../paging.js';
import { defineOperation, NOT_FOR_AGENTS, type OperationEntry } from '../operations.js';
import {
  createUser, createUserInput, deactivateUser, getUser, listUsers, listUsersInput, reactivateUser, resetPasswordInput, resetUserPassword,
  setUserRoles, setUserRolesInput, updateUser, updateUserInput,
} from './users.js';
import { userOutput } from './user.read.js';
import {
  apiKeyOutput, createApiKeyInput, createdApiKeyOutput, listApiKeysInput, listUserApiKeys, provisionApiKey, revokeUserApiKey,
  rotateApiKeyInput, rotateUserApiKey,
} from './api-keys.js';

export const userPageOutput = pageOutput(userOutput, 'users');
export const apiKeyPageOutput = pageOutput(apiKeyOutput, 'API keys (metadata, never a key)');

const VERSIONED = 'With `expectedVersion`, writes only if the user is still at that version (409 version_conflict otherwise).';
const KEY_PARAMS = { id: 'userId' };

export const USER_OPERATIONS: OperationEntry[] = [
  defineOperation({
    operation: 'users.list',
    run: (deps, ctx, _p, input) => listUsers(deps, ctx, input),
    input: listUsersInput,
    output: userPageOutput,
    rest: {
      method: 'get', path: '/users', status: 200, tag: 'users', input: 'query', summary: 'List users (filters type, status, q)',
      description: 'Users, a page at a time, filtered by type, status or a name/email search.',
    },
    graphql: { kind: 'query', field: 'users', type: 'UserPage', args: 'flat' },
    mcp: { exposed: 'narrowed', name: 'list_users', why: 'An agent picks a tension lead: it gets id, name, type and status, no emails, roles or keys.' },
  }),
  defineOperation({
    operation: 'users.create',
    run: (deps, ctx, _p, input) => createUser(deps, ctx, input),
    input: createUserInput,
    output: userOutput,
    errors: ['email_taken', 'actor_not_found', 'actor_not_agent_type', 'escalation_denied'],
    audit: ['user.created'],
    rest: {
      method: 'post', path: '/users', status: 201, tag: 'users', input: 'body',
      summary: 'Create a human (with password) or an agent (without; optionally linked to an agent actor)',
      description:
        'Creates a human (with a password) or an agent (without one; optionally linked to an actor of type agent). Roles you grant must only hold permissions you hold yourself (403 escalation_denied).',
    },
    graphql: { kind: 'mutation', field: 'createUser', type: 'User', args: 'input', inputType: 'CreateUserInput' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityWrite },
    example: { type: 'agent', email: 'sweep-agent@test.example', name: 'Sweep agent' },
    graphqlExample: { type: 'agent', email: 'sweep-agent-gql@test.example', name: 'Sweep agent' },
  }),
  defineOperation({
    operation: 'users.get',
    run: (deps, ctx, p) => getUser(deps, ctx, p.id),
    output: userOutput,
    errors: ['user_not_found'],
    rest: { method: 'get', path: '/users/:id', status: 200, tag: 'users', input: 'none', summary: 'Get a user', description: 'One user with their roles.' },
    graphql: { kind: 'query', field: 'user', type: 'User', nullable: true, args: 'none' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityRead },
  }),
  defineOperation({
    operation: 'users.update',
    run: (deps, ctx, p, input) => updateUser(deps, ctx, p.id, input),
    input: updateUserInput,
    output: userOutput,
    errors: ['user_not_found', 'email_taken', 'actor_not_found', 'actor_not_agent_type', 'escalation_denied', 'version_conflict'],
    audit: ['user.updated'],
    rest: {
      method: 'patch', path: '/users/:id', status: 200, tag: 'users', input: 'body', bodyRequired: true, summary: 'Update name, email or linked actor (type is immutable)',
      description: `Changes the name, email or linked actor; the type cannot change (400). ${VERSIONED}`,
    },
    graphql: { kind: 'mutation', field: 'updateUser', type: 'User', args: 'input', inputType: 'UpdateUserInput' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityWrite },
    example: { name: 'Renamed user' },
  }),
  defineOperation({
    operation: 'users.deactivate',
    run: (deps, ctx, p) => deactivateUser(deps, ctx, p.id),
    errors: ['user_not_found', 'last_admin', 'escalation_denied'],
    audit: ['user.deactivated'],
    rest: {
      method: 'delete', path: '/users/:id', status: 204, tag: 'users', input: 'none', summary: 'Deactivate a user: its sessions and keys are revoked',
      description: 'Deactivates the user: their sessions and API keys are revoked at once. The last active admin cannot be deactivated (409 last_admin).',
    },
    graphql: { kind: 'mutation', field: 'deactivateUser', type: 'User', args: 'none' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityWrite },
  }),
  defineOperation({
    operation: 'users.reactivate',
    run: (deps, ctx, p) => reactivateUser(deps, ctx, p.id),
    output: userOutput,
    errors: ['user_not_found', 'escalation_denied'],
    audit: ['user.reactivated'],
    rest: {
      method: 'post', path: '/users/:id/reactivate', status: 200, tag: 'users', input: 'none', summary: 'Make a deactivated user active again',
      description: 'Makes a deactivated user active again; their old sessions and keys stay revoked. An active user is answered unchanged.',
    },
    graphql: {
      kind: 'mutation', field: 'reactivateUser', type: 'User', args: 'none',
      description: 'Makes a deactivated user active again; its sessions and keys stay revoked. An active user is answered unchanged.',
    },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityWrite },
  }),
  defineOperation({
    operation: 'users.setRoles',
    run: (deps, ctx, p, input) => setUserRoles(deps, ctx, p.id, input),
    input: setUserRolesInput,
    output: userOutput,
    errors: ['user_not_found', 'escalation_denied', 'last_admin', 'version_conflict'],
    audit: ['user.roles_set'],
    rest: {
      method: 'put', path: '/users/:id/roles', status: 200, tag: 'users', input: 'body', bodyRequired: true, summary: "Replace the user's roles",
      description: `Replaces the user's roles with exactly these. You can only grant what you hold yourself; the last admin keeps the admin role. ${VERSIONED}`,
    },
    graphql: { kind: 'mutation', field: 'setUserRoles', type: 'User', args: 'flat' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityWrite },
    example: { roleIds: [] },
  }),
  defineOperation({
    operation: 'users.resetPassword',
    run: (deps, ctx, p, input) => resetUserPassword(deps, ctx, p.id, input),
    input: resetPasswordInput,
    errors: ['user_not_found', 'not_applicable'],
    audit: ['user.password_reset'],
    rest: {
      method: 'post', path: '/users/:id/password', status: 204, tag: 'users', input: 'body', bodyRequired: true, summary: "Set a human user's password (revokes its sessions)",
      description: "Sets a human user's password (an administrator's reset); their sessions are revoked. Not for agents (422 not_applicable).",
    },
    graphql: { kind: 'mutation', field: 'resetUserPassword', type: 'Boolean', args: 'flat' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityWrite },
    example: { password: 'a-brand-new-password-1' },
  }),
  defineOperation({
    operation: 'users.listApiKeys',
    run: (deps, ctx, p, input) => listUserApiKeys(deps, ctx, p.id, input),
    input: listApiKeysInput,
    output: apiKeyPageOutput,
    errors: ['user_not_found'],
    rest: {
      method: 'get', path: '/users/:id/api-keys', status: 200, tag: 'api-keys', input: 'query', summary: "List an agent user's API keys (metadata only, never a key)",
      description: "An agent user's API keys, metadata only: never a key or its hash.",
    },
    graphql: { kind: 'query', field: 'userApiKeys', type: 'ApiKeyPage', args: 'flat', params: KEY_PARAMS },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityRead },
  }),
  defineOperation({
    operation: 'users.provisionApiKey',
    run: (deps, ctx, p, input) => provisionApiKey(deps, ctx, p.id, input),
    input: createApiKeyInput,
    output: createdApiKeyOutput,
    errors: ['user_not_found', 'not_an_agent', 'escalation_denied'],
    audit: ['key.provisioned'],
    rest: {
      method: 'post', path: '/users/:id/api-keys', status: 201, tag: 'api-keys', input: 'body', bodyRequired: true,
      summary: 'Provision an API key for an agent user; the plaintext key is in this answer only',
      description:
        'Provisions an API key for an agent user (422 not_an_agent for a human), optionally narrowed to some of its permissions. The plaintext `key` is in this answer only: hand it over now.',
    },
    graphql: { kind: 'mutation', field: 'provisionApiKey', type: 'CreatedApiKey', args: 'input', inputType: 'CreateApiKeyInput', params: KEY_PARAMS },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityWrite },
    example: { name: 'Sweep key' },
  }),
  defineOperation({
    operation: 'users.rotateApiKey',
    run: (deps, ctx, p, input) => rotateUserApiKey(deps, ctx, p.id, p.keyId, input),
    input: rotateApiKeyInput,
    output: createdApiKeyOutput,
    errors: ['user_not_found', 'not_found', 'not_an_agent', 'not_applicable', 'escalation_denied'],
    audit: ['key.rotated'],
    rest: {
      method: 'post', path: '/users/:id/api-keys/:keyId/rotate', status: 201, tag: 'api-keys', input: 'body', bodyRequired: false, summary: "Rotate an agent user's API key",
      description:
        "A new key (shown once) with the old one's name, permissions and expiry; the old one stops working after `overlapSeconds` (at once for 0), so the agent can switch without downtime.",
    },
    graphql: {
      kind: 'mutation', field: 'rotateUserApiKey', type: 'CreatedApiKey', args: 'input', inputType: 'RotateApiKeyInput', params: KEY_PARAMS,
      description: "A new key copying the old one's name, permissions and expiry; the old key stops working after the overlap.",
    },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityWrite },
    example: { overlapSeconds: 60 },
  }),
  defineOperation({
    operation: 'users.revokeApiKey',
    run: (deps, ctx, p) => revokeUserApiKey(deps, ctx, p.id, p.keyId),
    errors: ['user_not_found'],
    audit: ['key.revoked'],
    rest: {
      method: 'delete', path: '/users/:id/api-keys/:keyId', status: 204, tag: 'api-keys', input: 'none', summary: "Revoke an agent user's API key (refused from the very next request)",
      description: "Revokes an agent user's API key; it is refused from the very next request. A key of another user is 404.",
    },
    graphql: { kind: 'mutation', field: 'revokeApiKey', type: 'Boolean', args: 'none', params: KEY_PARAMS },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityWrite },
  }),
];
