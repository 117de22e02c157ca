// The audit trail: `auditLog`, newest first, the filters of GET /api/v1/audit. Parse → call → map.
import { builder } from '../builder.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import { withoutNulls } from '../args.js';
import { listAudit } from '../../server/application/audit/audit.js';
import { AuditEntryPageType } from './audit.type.js';

builder.queryFields((t) => ({
  auditLog: t.field({
    type: AuditEntryPageType,
    authScopes: { operation: 'audit.list' },
    description: 'Identity and administration actions, newest first (SPEC §11); `from` inclusive, `to` exclusive.',
    args: {
      action: t.arg.string(),
      targetType: t.arg.string(),
      targetId: t.arg.id(),
      byUserId: t.arg.id(),
      from: t.arg({ type: 'DateTime' }),
      to: t.arg({ type: 'DateTime' }),
      limit: t.arg.int(),
      cursor: t.arg.string(),
    },
    resolve: async (_root, args, context) => unwrap(await listAudit(context.deps, gqlCtx(context), withoutNulls(args))),
  }),
}));
