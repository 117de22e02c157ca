// OpenAPI description of the audit trail's route (SPEC §11), from the use case's schemas.
import { z } from 'zod';
import { auditEntryOutput, listAuditQuery } from '../application/audit/audit.js';
import type { RouteDoc } from './openapi.js';

const auditPage = z.object({
  data: z.array(auditEntryOutput).describe('Entries, newest first'),
  nextCursor: z.string().nullable().describe('The next (older) page; null on the last one'),
});

export const AUDIT_ROUTE_DOCS: RouteDoc[] = [
  {
    method: 'get',
    path: '/audit',
    summary: 'The audit trail of identity and administration actions, newest first, with filters',
    tag: 'audit',
    operation: 'audit.list',
    query: listAuditQuery,
    response: auditPage,
    status: 200,
  },
];
