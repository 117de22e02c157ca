// The me area's operations: who am I, and the self-service of a human signed in with a password (own
// password, own API keys). Every face is generated from these entries (server/application/operations.ts).
//
// MCP: only `me.get`, as `whoami` — an agent's first call, to learn what it may do; it reads only the
// caller itself. The self-service writes need a password session, which an MCP caller (an API key) never
// has: as tools they could only ever answer session_required.
import { defineOperation, NOT_FOR_AGENTS, type OperationEntry } from '../operations.js';
import { changePassword, changePasswordInput, getMe, meOutput } from '../auth/auth.js';
import {
  createApiKeyInput,
  createdApiKeyOutput,
  createMyApiKey,
  listApiKeysInput,
  listMyApiKeys,
  revokeMyApiKey,
  rotateApiKeyInput,
  rotateMyApiKey,
} from './api-keys.js';
import { apiKeyPageOutput } from './users.operations.js';

const SELF = 'Self-service for a human signed in with a password (session cookie); API keys and agents get 403 session_required.';

export const ME_OPERATIONS: OperationEntry[] = [
  defineOperation({
    operation: 'me.get',
    run: (deps, ctx) => getMe(deps, ctx),
    output: meOutput,
    rest: {
      method: 'get',
      path: '/auth/me',
      status: 200,
      tag: 'auth',
      input: 'none',
      operationId: 'getMe',
      summary: 'Who am I: user, roles, effective permissions, how I authenticated, the key in use',
      description:
        "Who is calling: the user, their roles, their effective permissions, whether they came with a session or an API key, and that key's metadata (never the key).",
    },
    graphql: { kind: 'query', field: 'me', type: 'Me', args: 'none' },
    mcp: {
      exposed: true,
      why: 'An agent learns what it may do before it tries; it reads nothing but the caller itself.',
      name: 'whoami',
      title: 'Who am I',
      description:
        'Returns exactly what GET /api/v1/auth/me answers: the user this API key belongs to (with its type, human or agent), its roles, ' +
        'the effective permissions, how the call is authenticated and the key in use. Call it first to learn what you may do; tools you ' +
        'lack permissions for are not listed.',
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
  }),
  defineOperation({
    operation: 'me.changePassword',
    run: (deps, ctx, _p, input) => changePassword(deps, ctx, input, String(ctx.clientAddress)),
    input: changePasswordInput,
    errors: ['session_required'],
    audit: ['user.password_changed', 'auth.password_change_failed'],
    rest: {
      method: 'post',
      path: '/me/password',
      status: 204,
      tag: 'me',
      input: 'body',
      bodyRequired: true,
      auth: 'session',
      summary: 'Change my password (revokes my other sessions)',
      description: `Changes my password given the current one; my other sessions are revoked. ${SELF}`,
    },
    graphql: { kind: 'mutation', field: 'changePassword', type: 'Boolean', args: 'input', inputType: 'ChangePasswordInput' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.selfService },
    example: { currentPassword: 'not-the-password-1', newPassword: 'another-password-22' },
  }),
  defineOperation({
    operation: 'me.listApiKeys',
    run: (deps, ctx, _p, input) => listMyApiKeys(deps, ctx, input),
    input: listApiKeysInput,
    output: apiKeyPageOutput,
    errors: ['session_required'],
    rest: {
      method: 'get',
      path: '/me/api-keys',
      status: 200,
      tag: 'me',
      input: 'query',
      auth: 'session',
      summary: 'List my API keys',
      description: `My API keys, metadata only (never a key). ${SELF}`,
    },
    graphql: { kind: 'query', field: 'myApiKeys', type: 'ApiKeyPage', args: 'flat' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.selfService },
  }),
  defineOperation({
    operation: 'me.createApiKey',
    run: (deps, ctx, _p, input) => createMyApiKey(deps, ctx, input),
    input: createApiKeyInput,
    output: createdApiKeyOutput,
    errors: ['session_required'],
    audit: ['key.created'],
    rest: {
      method: 'post',
      path: '/me/api-keys',
      status: 201,
      tag: 'me',
      input: 'body',
      bodyRequired: true,
      auth: 'session',
      summary: 'Create an API key for myself; the key is shown once',
      description: `Creates an API key acting as me, optionally narrowed to some of my permissions. The plaintext \`key\` is in this answer only: store it now. ${SELF}`,
    },
    graphql: { kind: 'mutation', field: 'createMyApiKey', type: 'CreatedApiKey', args: 'input', inputType: 'CreateApiKeyInput' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.selfService },
    example: { name: 'Mine' },
  }),
  defineOperation({
    operation: 'me.rotateApiKey',
    run: (deps, ctx, p, input) => rotateMyApiKey(deps, ctx, p.keyId, input),
    input: rotateApiKeyInput,
    output: createdApiKeyOutput,
    errors: ['session_required', 'not_found', 'not_applicable'],
    audit: ['key.rotated'],
    rest: {
      method: 'post',
      path: '/me/api-keys/:keyId/rotate',
      status: 201,
      tag: 'me',
      input: 'body',
      bodyRequired: false,
      auth: 'session',
      summary: 'Rotate one of my API keys',
      description: `A new key (shown once) with the old one's name, permissions and expiry; the old one stops working after \`overlapSeconds\` (at once for 0). ${SELF}`,
    },
    graphql: {
      kind: 'mutation',
      field: 'rotateMyApiKey',
      type: 'CreatedApiKey',
      args: 'input',
      inputType: 'RotateApiKeyInput',
      description: "A new key copying the old one's name, permissions and expiry; the old key stops working after the overlap.",
    },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.selfService },
    example: { overlapSeconds: 60 },
  }),
  defineOperation({
    operation: 'me.revokeApiKey',
    run: (deps, ctx, p) => revokeMyApiKey(deps, ctx, p.keyId),
    errors: ['session_required'],
    audit: ['key.revoked'],
    rest: {
      method: 'delete',
      path: '/me/api-keys/:keyId',
      status: 204,
      tag: 'me',
      input: 'none',
      auth: 'session',
      summary: 'Revoke one of my API keys',
      description: `Revokes one of my API keys; it is refused from the very next request. Another user's key is 404. ${SELF}`,
    },
    graphql: { kind: 'mutation', field: 'revokeMyApiKey', type: 'Boolean', args: 'none' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.selfService },
  }),
];
