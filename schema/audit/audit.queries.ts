// The audit trail: `auditLog`, newest first, the filters of GET /api/v1/audit, and `auditVocabulary`, the values
// those filters take. Parse → call → map.
import { builder } from '../builder.js';
import { listAuditQuery } from '../../server/application/audit/audit.js';
import { describedArgs, listLimit } from '../described.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import { withoutNulls } from '../args.js';
import { auditVocabulary, listAudit } from '../../server/application/audit/audit.js';
import { AuditEntryPageType, AuditVocabularyType } from './audit.type.js';

builder.queryFields((t) => ({
  auditLog: t.field({
    type: AuditEntryPageType,
    authScopes: { operation: 'audit.list' },
    description: 'Identity and administration actions, newest first (SPEC §11); `from` inclusive, `to` exclusive.',
    ...listLimit(listAuditQuery),
    args: describedArgs(
      {
        action: t.arg.string(),
        targetType: t.arg.string(),
        targetId: t.arg.id(),
        byUserId: t.arg.id(),
        from: t.arg({ type: 'DateTime' }),
        to: t.arg({ type: 'DateTime' }),
        limit: t.arg.int(),
        cursor: t.arg.string(),
      },
      listAuditQuery,
    ),
    resolve: async (_root, args, context) => unwrap(await listAudit(context.deps, gqlCtx(context), withoutNulls(args))),
  }),
  auditVocabulary: t.field({
    type: AuditVocabularyType,
    authScopes: { operation: 'audit.vocabulary' },
    description: 'The actions and target types the audit trail knows, in the order a filter lists them.',
    resolve: (_root, _args, context) => unwrap(auditVocabulary(gqlCtx(context))),
  }),
}));
