// OpenAPI descriptions of the identity routes (auth, me, users, roles, permissions, API keys), from the use cases' schemas.
import { z } from 'zod';
import { changePasswordInput, loginInput, meOutput } from '../application/auth/auth.js';
import { createApiKeyInput, createdApiKeyOutput, apiKeyOutput, listApiKeysInput, rotateApiKeyInput } from '../application/users/api-keys.js';
import { createUserInput, listUsersInput, resetPasswordInput, setUserRolesInput, updateUserInput } from '../application/users/users.js';
import { userOutput } from '../application/users/user.read.js';
import { createRoleInput, listRolesInput, updateRoleInput } from '../application/roles/roles.js';
import { roleOutput } from '../application/roles/role.read.js';
import type { RouteDoc } from './openapi.js';

const page = (item: z.ZodType) => z.object({ data: z.array(item), nextCursor: z.string().nullable() });

const SELF = 'Self-service for a human signed in with a password (session cookie); API keys and agents get 403 session_required.';

export const IDENTITY_ROUTE_DOCS: RouteDoc[] = [
  { method: 'post', path: '/auth/login', summary: 'Sign in a human with email and password; sets the `session` cookie', tag: 'auth', auth: 'public', body: loginInput, response: userOutput, status: 200, errors: ['invalid_credentials', 'rate_limited'] },
  { method: 'post', path: '/auth/logout', summary: 'Sign out: revokes the session server-side', tag: 'auth', auth: 'session', status: 204, errors: ['session_required'] },
  { method: 'get', path: '/auth/me', summary: 'Who am I: user, roles, effective permissions, how I authenticated, the key in use', tag: 'auth', operation: 'me.get', response: meOutput, status: 200 },

  { method: 'post', path: '/me/password', summary: `Change my password (revokes my other sessions). ${SELF}`, tag: 'me', operation: 'me.changePassword', auth: 'session', body: changePasswordInput, status: 204, errors: ['session_required'] },
  { method: 'get', path: '/me/api-keys', summary: `List my API keys. ${SELF}`, tag: 'me', operation: 'me.listApiKeys', auth: 'session', query: listApiKeysInput, response: page(apiKeyOutput), status: 200, errors: ['session_required'] },
  { method: 'post', path: '/me/api-keys', summary: `Create an API key for myself; the key is shown once. ${SELF}`, tag: 'me', operation: 'me.createApiKey', auth: 'session', body: createApiKeyInput, response: createdApiKeyOutput, status: 201, errors: ['session_required'] },
  { method: 'post', path: '/me/api-keys/:keyId/rotate', summary: `Rotate one of my API keys: a new key (shown once) with its name, permissions and expiry; the old one stops working after overlapSeconds. ${SELF}`, tag: 'me', operation: 'me.rotateApiKey', auth: 'session', body: rotateApiKeyInput, bodyRequired: false, response: createdApiKeyOutput, status: 201, errors: ['session_required', 'not_found', 'not_applicable'] },
  { method: 'delete', path: '/me/api-keys/:keyId', summary: `Revoke one of my API keys. ${SELF}`, tag: 'me', operation: 'me.revokeApiKey', auth: 'session', status: 204, errors: ['session_required'] },

  { method: 'get', path: '/users', summary: 'List users (filters type, status, q)', tag: 'users', operation: 'users.list', query: listUsersInput, response: page(userOutput), status: 200 },
  { method: 'post', path: '/users', summary: 'Create a human (with password) or an agent (without; optionally linked to an agent actor)', tag: 'users', operation: 'users.create', body: createUserInput, response: userOutput, status: 201, errors: ['email_taken', 'actor_not_found', 'actor_not_agent_type', 'escalation_denied'] },
  { method: 'get', path: '/users/:id', summary: 'Get a user', tag: 'users', operation: 'users.get', response: userOutput, status: 200, errors: ['user_not_found'] },
  { method: 'patch', path: '/users/:id', summary: 'Update name, email or linked actor (type is immutable)', tag: 'users', operation: 'users.update', body: updateUserInput, response: userOutput, status: 200, errors: ['user_not_found', 'email_taken', 'actor_not_found', 'actor_not_agent_type', 'escalation_denied', 'version_conflict'] },
  { method: 'delete', path: '/users/:id', summary: 'Deactivate a user: its sessions and keys are revoked', tag: 'users', operation: 'users.deactivate', status: 204, errors: ['user_not_found', 'last_admin', 'escalation_denied'] },
  { method: 'post', path: '/users/:id/reactivate', summary: 'Make a deactivated user active again (its sessions and keys stay revoked); an active user is answered unchanged', tag: 'users', operation: 'users.reactivate', response: userOutput, status: 200, errors: ['user_not_found', 'escalation_denied'] },
  { method: 'put', path: '/users/:id/roles', summary: "Replace the user's roles", tag: 'users', operation: 'users.setRoles', body: setUserRolesInput, response: userOutput, status: 200, errors: ['user_not_found', 'escalation_denied', 'last_admin', 'version_conflict'] },
  { method: 'post', path: '/users/:id/password', summary: "Set a human user's password (revokes its sessions)", tag: 'users', operation: 'users.resetPassword', body: resetPasswordInput, status: 204, errors: ['user_not_found', 'not_applicable'] },
  { method: 'get', path: '/users/:id/api-keys', summary: "List an agent user's API keys (metadata only, never a key)", tag: 'api-keys', operation: 'users.listApiKeys', query: listApiKeysInput, response: page(apiKeyOutput), status: 200, errors: ['user_not_found'] },
  { method: 'post', path: '/users/:id/api-keys', summary: 'Provision an API key for an agent user; the plaintext key is in this answer only', tag: 'api-keys', operation: 'users.provisionApiKey', body: createApiKeyInput, response: createdApiKeyOutput, status: 201, errors: ['user_not_found', 'not_an_agent', 'escalation_denied'] },
  { method: 'post', path: '/users/:id/api-keys/:keyId/rotate', summary: "Rotate an agent user's API key: a new key (shown once) with the old one's name, permissions and expiry; the old one stops working after overlapSeconds (at once for 0)", tag: 'api-keys', operation: 'users.rotateApiKey', body: rotateApiKeyInput, bodyRequired: false, response: createdApiKeyOutput, status: 201, errors: ['user_not_found', 'not_found', 'not_an_agent', 'not_applicable', 'escalation_denied'] },
  { method: 'delete', path: '/users/:id/api-keys/:keyId', summary: "Revoke an agent user's API key (refused from the very next request)", tag: 'api-keys', operation: 'users.revokeApiKey', status: 204, errors: ['user_not_found'] },

  { method: 'get', path: '/permissions', summary: 'The permission catalogue', tag: 'roles', operation: 'permissions.list', response: z.object({ data: z.array(z.string()) }), status: 200 },
  { method: 'get', path: '/roles', summary: 'List roles', tag: 'roles', operation: 'roles.list', query: listRolesInput, response: page(roleOutput), status: 200 },
  { method: 'post', path: '/roles', summary: 'Create a role (permissions you hold yourself, optionally inheriting other roles)', tag: 'roles', operation: 'roles.create', body: createRoleInput, response: roleOutput, status: 201, errors: ['escalation_denied', 'role_cycle'] },
  { method: 'get', path: '/roles/:id', summary: 'Get a role', tag: 'roles', operation: 'roles.get', response: roleOutput, status: 200 },
  { method: 'patch', path: '/roles/:id', summary: 'Update a role (not the permissions of a system role)', tag: 'roles', operation: 'roles.update', body: updateRoleInput, response: roleOutput, status: 200, errors: ['system_role', 'role_cycle', 'last_admin', 'escalation_denied', 'version_conflict'] },
  { method: 'delete', path: '/roles/:id', summary: 'Delete a role that no user holds and no role inherits', tag: 'roles', operation: 'roles.delete', status: 204, errors: ['system_role', 'role_in_use'] },
];
