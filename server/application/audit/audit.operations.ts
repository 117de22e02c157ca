// The audit trail's operations (SPEC §11): reading it, and the vocabulary its filters take. Every face is
// generated from these entries (server/application/operations.ts).
//
// MCP: none. The trail says who did what to which user, role and key: it serves the humans who
// administer them, and no tension work.
import { z } from 'zod';
import { pageOutput } from '../paging.js';
import { defineOperation, type OperationEntry } from '../operations.js';
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES, auditEntryOutput, auditVocabulary, countAudit, countAuditQuery, listAudit, listAuditQuery } from './audit.js';
import { listTotalOutput } from '../list-total.js';

export const auditPageOutput = pageOutput(auditEntryOutput, 'the audit trail, newest first');
const auditVocabularyOutput = z.object({
  actions: z.array(z.enum(AUDIT_ACTIONS)).describe('Every action the trail records, in the order a filter lists them.'),
  targetTypes: z.array(z.enum(AUDIT_TARGET_TYPES)).describe('Every kind of target an entry can be about.'),
});

const NOT_FOR_AGENTS = 'Who did what to which user, role and key: administration reading for humans, no tension work.';

export const AUDIT_OPERATIONS: OperationEntry[] = [
  defineOperation({
    operation: 'audit.list',
    run: (deps, ctx, _p, input) => listAudit(deps, ctx, input),
    input: listAuditQuery,
    output: auditPageOutput,
    rest: {
      method: 'get',
      path: '/audit',
      status: 200,
      tag: 'audit',
      input: 'query',
      summary: 'Read the audit trail',
      description:
        'Identity and administration actions (users, roles, keys, actors, projection rebuilds, failed logins), newest first, with filters: who did what to which target, with the changed fields, never a secret. The trail is append-only.',
    },
    graphql: {
      kind: 'query',
      field: 'auditLog',
      type: 'AuditEntryPage',
      args: 'flat',
      description: 'Identity and administration actions, newest first (SPEC §11); `from` inclusive, `to` exclusive.',
    },
    mcp: { exposed: false, why: NOT_FOR_AGENTS },
  }),
  defineOperation({
    operation: 'audit.count',
    run: (deps, ctx, _p, input) => countAudit(deps, ctx, input),
    input: countAuditQuery,
    output: listTotalOutput,
    // GraphQL only: the REST facade keeps exactly the contract's paths (SPEC §5), which have no count
    rest: null,
    graphql: {
      kind: 'query',
      field: 'auditLogTotal',
      type: 'ListTotal',
      args: 'flat',
      description:
        'How many entries the same filters as auditLog match: exact up to 10,000, past it 10,000 with exact false. Counted with a bound, never over every row.',
    },
    mcp: { exposed: false, why: NOT_FOR_AGENTS },
  }),
  defineOperation({
    operation: 'audit.vocabulary',
    // REST and MCP clients read the same lists as the `action` and `targetType` enums of GET /audit's parameters
    run: (_deps, ctx) => Promise.resolve(auditVocabulary(ctx)),
    output: auditVocabularyOutput,
    rest: null,
    graphql: {
      kind: 'query',
      field: 'auditVocabulary',
      type: 'AuditVocabulary',
      args: 'none',
      description: 'The actions and target types the audit trail knows, in the order a filter lists them.',
    },
    mcp: { exposed: false, why: NOT_FOR_AGENTS },
  }),
];
