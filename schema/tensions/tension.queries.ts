// Queries of the tensions area: parse → call → map.
import { builder } from '../builder.js';
import { TensionSortEnum, TensionStateEnum } from '../enums.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import { withoutNulls } from '../args.js';
import { getTension, getTensionHistory, listTensions } from '../../server/application/tensions/index.js';
import { HistoryPageType, TensionPageType, TensionType } from './tension.type.js';

builder.queryFields((t) => ({
  tensions: t.field({
    type: TensionPageType,
    authScopes: { operation: 'tensions.list' },
    args: {
      state: t.arg({ type: TensionStateEnum }),
      actorId: t.arg.id(),
      leadUserId: t.arg.id(),
      q: t.arg.string(),
      minScore: t.arg.int(),
      sort: t.arg({ type: TensionSortEnum }),
      limit: t.arg.int(),
      cursor: t.arg.string(),
    },
    resolve: async (_root, args, context) => unwrap(await listTensions(context.deps, gqlCtx(context), withoutNulls(args))),
  }),
  tension: t.field({
    type: TensionType,
    nullable: true,
    authScopes: { operation: 'tensions.get' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => unwrap(await getTension(context.deps, gqlCtx(context), String(args.id))),
  }),
  tensionHistory: t.field({
    type: HistoryPageType,
    authScopes: { operation: 'tensions.history' },
    args: { id: t.arg.id({ required: true }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_root, { id, ...page }, context) =>
      unwrap(await getTensionHistory(context.deps, gqlCtx(context), String(id), withoutNulls(page))),
  }),
}));
