// OpenAPI description of the audit trail's route (SPEC §11), from the use case's schemas.
import { listAuditQuery } from '../application/audit/audit.js';
import { auditPageOutput } from './openapi.components.js';
import type { RouteDoc } from './openapi.js';

export const AUDIT_ROUTE_DOCS: RouteDoc[] = [
  {
    method: 'get',
    path: '/audit',
    summary: 'Read the audit trail',
    description:
      'Identity and administration actions (users, roles, keys, actors, projection rebuilds, failed logins), newest first, with filters: who did what to which target, with the changed fields, never a secret. The trail is append-only.',
    tag: 'audit',
    operation: 'audit.list',
    query: listAuditQuery,
    response: auditPageOutput,
    status: 200,
  },
];
