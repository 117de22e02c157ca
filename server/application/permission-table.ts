// The one table of which permission each operation needs. The application layer enforces it;
// Pothos authScopes, the MCP tool list and the authorization sweep tests read the same table. The tension
// commands' rows come from their registry entries, each of which states its permission.
import type { Permission } from '../domain/permissions.js';
import { TENSION_COMMANDS, type TensionCommandOperation } from './tensions/registry.js';
import { WEBHOOK_PERMISSIONS } from './webhooks/operations.js';

/** The tension commands' rows, each stated by its registry entry, so a new command brings its own row. */
const TENSION_COMMAND_PERMISSIONS = Object.fromEntries(TENSION_COMMANDS.map((c) => [c.operation, c.permission])) as Record<
  TensionCommandOperation,
  Permission
>;

/** `null`: any authenticated caller. */
export const OPERATION_PERMISSIONS = {
  'tensions.list': 'tensions:read',
  'tensions.get': 'tensions:read',
  'tensions.history': 'tensions:read',
  'tensions.changes': 'tensions:read',
  ...TENSION_COMMAND_PERMISSIONS,
  'actors.list': 'actors:read',
  'actors.get': 'actors:read',
  'actors.create': 'actors:write',
  'actors.update': 'actors:write',
  'actors.delete': 'actors:delete',
  'users.list': 'users:read',
  'users.get': 'users:read',
  'users.create': 'users:write',
  'users.update': 'users:write',
  'users.deactivate': 'users:write',
  'users.reactivate': 'users:write',
  'users.setRoles': 'users:write',
  'users.resetPassword': 'users:write',
  'users.resetMfa': 'users:write',
  'users.listApiKeys': 'users:read',
  'users.provisionApiKey': 'users:write',
  'users.revokeApiKey': 'users:write',
  'users.rotateApiKey': 'users:write',
  'users.listConnectedApps': 'users:read',
  'users.revokeConnectedApp': 'users:write',
  'roles.list': 'roles:read',
  'roles.get': 'roles:read',
  'roles.create': 'roles:write',
  'roles.update': 'roles:write',
  'roles.delete': 'roles:write',
  'permissions.list': 'roles:read',
  'projections.rebuild': 'projections:rebuild',
  'events.list': 'events:read',
  'audit.list': 'audit:read',
  'audit.vocabulary': 'audit:read',
  ...WEBHOOK_PERMISSIONS,
  'me.get': null,
  'me.changePassword': null,
  'me.listApiKeys': null,
  'me.createApiKey': null,
  'me.revokeApiKey': null,
  'me.rotateApiKey': null,
  'me.getMfa': null,
  'me.startMfaEnrolment': null,
  'me.confirmMfaEnrolment': null,
  'me.disableMfa': null,
  'me.listConnectedApps': null,
  'me.revokeConnectedApp': null,
} as const satisfies Record<string, Permission | null>;

export type Operation = keyof typeof OPERATION_PERMISSIONS;
