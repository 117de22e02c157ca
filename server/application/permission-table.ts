// The one table of which permission each operation needs. The application layer enforces it;
// Pothos authScopes, the MCP tool list and the authorization sweep tests read the same table.
//
// A leaf: it imports nothing but the permission vocabulary. The operation registries (the tension
// commands', server/application/operations.ts and each area's) import it and name their rows by key
// (`operation: 'users.create'`, typed `Operation`), so an entry cannot name a row that is not here, and
// the table never imports a registry: that import (table → registry → use cases → authorize.ts → table)
// was the loop issue 31 names. A new operation is one row here and one registry entry.
import type { Permission } from '../domain/permissions.js';

/** `null`: any authenticated caller. */
export const OPERATION_PERMISSIONS = {
  'tensions.list': 'tensions:read',
  'tensions.get': 'tensions:read',
  'tensions.history': 'tensions:read',
  'tensions.changes': 'tensions:read',
  'tensions.sense': 'tensions:write',
  'tensions.rename': 'tensions:write',
  'tensions.rescore': 'tensions:write',
  'tensions.revise': 'tensions:write',
  'tensions.lead': 'tensions:write',
  'tensions.reassign': 'tensions:write',
  'tensions.resolve': 'tensions:write',
  'tensions.drop': 'tensions:write',
  'tensions.reopen': 'tensions:write',
  'tensions.revive': 'tensions:write',
  'tensions.discard': 'tensions:delete',
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
  'users.searchApiKeys': 'users:read',
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
  'webhooks.list': 'webhooks:read',
  'webhooks.get': 'webhooks:read',
  'webhooks.create': 'webhooks:write',
  'webhooks.update': 'webhooks:write',
  'webhooks.delete': 'webhooks:write',
  'webhooks.rotateSecret': 'webhooks:write',
  'webhooks.test': 'webhooks:write',
  'webhooks.listDeliveries': 'webhooks:read',
  'webhooks.retryDelivery': 'webhooks:write',
  'webhooks.replay': 'webhooks:write',
  'dashboard.tensions': 'tensions:read',
  'dashboard.keyUsage': 'users:read',
  'dashboard.signInFailures': 'audit:read',
  'dashboard.feedHealth': 'events:read',
  'dashboard.webhookHealth': 'webhooks:read',
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
  // exports of a list (issue 36): the list's permission
  'tensions.export': 'tensions:read',
  'actors.export': 'actors:read',
  'users.export': 'users:read',
  'audit.export': 'audit:read',
  // a list's total, exact up to a bound (issue 36): the list's permission
  'tensions.count': 'tensions:read',
  'users.count': 'users:read',
  'actors.count': 'actors:read',
  'roles.count': 'roles:read',
  'audit.count': 'audit:read',
  'webhooks.countDeliveries': 'webhooks:read',
} as const satisfies Record<string, Permission | null>;

export type Operation = keyof typeof OPERATION_PERMISSIONS;

/** The permission an operation needs; null: any authenticated caller. */
export function permissionOf(op: Operation): Permission | null {
  return OPERATION_PERMISSIONS[op];
}
