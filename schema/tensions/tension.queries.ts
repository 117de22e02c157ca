// Queries of the tensions area: parse → call → map.
import { builder } from '../builder.js';
import { TensionSortEnum, TensionStateEnum } from '../enums.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import { withoutNulls } from '../args.js';
import { countTensions, getTension, getTensionChanges, getTensionHistory, listTensions } from '../../server/application/tensions/index.js';
import { describedArgs, listLimit, operationDescription } from '../described.js';
import { historyQuery, listTensionsQuery } from '../../server/application/tensions/tension.inputs.js';
import { HistoryPageType, ListTotalType, TensionChangesType, TensionPageType, TensionType } from './tension.type.js';

builder.queryFields((t) => ({
  tensions: t.field({
    type: TensionPageType,
    authScopes: { operation: 'tensions.list' },
    description: operationDescription('tensions.list'),
    ...listLimit(listTensionsQuery),
    args: describedArgs(
      {
        state: t.arg({ type: TensionStateEnum }),
        actorId: t.arg.id(),
        leadUserId: t.arg.id(),
        q: t.arg.string(),
        minScore: t.arg.int(),
        sort: t.arg({ type: TensionSortEnum }),
        limit: t.arg.int(),
        cursor: t.arg.string(),
      },
      listTensionsQuery,
    ),
    resolve: async (_root, args, context) => unwrap(await listTensions(context.deps, gqlCtx(context), withoutNulls(args))),
  }),
  tensionsTotal: t.field({
    type: ListTotalType,
    description:
      'How many tensions the same filters as tensions match, exact up to 10,000 (counted with a bound, never over every row; a search of one or two characters over at most 100,000 tensions).',
    authScopes: { operation: 'tensions.count' },
    args: {
      state: t.arg({ type: TensionStateEnum, description: 'Only tensions in this state.' }),
      actorId: t.arg.id({ description: 'Only the tensions of this actor.' }),
      leadUserId: t.arg.id({ description: 'Only the tensions this user leads.' }),
      q: t.arg.string({ description: 'Text to find in the name, current context or potential future (case-insensitive).' }),
      minScore: t.arg.int({ description: 'Only tensions scored at least this, 1-10.' }),
    },
    resolve: async (_root, args, context) => unwrap(await countTensions(context.deps, gqlCtx(context), withoutNulls(args))),
  }),
  tension: t.field({
    type: TensionType,
    nullable: true,
    description:
      'One tension as it is now; with asOfVersion or asOf (not both), as it was then, folded from its stream (SPEC §15), with `asOf` set. ' +
      'NOT_FOUND when it had not been sensed yet then, had been discarded by then, or has no such version.',
    authScopes: { operation: 'tensions.get' },
    args: describedArgs({
      id: t.arg.id({ required: true }),
      asOfVersion: t.arg.int({ description: 'Read it as it was at this version of its stream (1 = as sensed).' }),
      asOf: t.arg({ type: 'DateTime', description: 'Read it as it was at this moment: the last version recorded at or before it.' }),
    }),
    resolve: async (_root, { id, ...past }, context) => unwrap(await getTension(context.deps, gqlCtx(context), String(id), withoutNulls(past))),
  }),
  tensionChanges: t.field({
    type: TensionChangesType,
    description: 'Every field whose value differs between versions `from` and `to` of a tension (to: by default the current version), with its value at each.',
    authScopes: { operation: 'tensions.changes' },
    args: describedArgs({
      id: t.arg.id({ required: true }),
      from: t.arg.int({ required: true, description: 'The version to compare from (1 = as sensed).' }),
      to: t.arg.int({
        description: 'The version to compare to, at least from; by default the current version (of a discarded tension: the last before its discard).',
      }),
    }),
    resolve: async (_root, { id, ...versions }, context) => unwrap(await getTensionChanges(context.deps, gqlCtx(context), String(id), withoutNulls(versions))),
  }),
  tensionHistory: t.field({
    type: HistoryPageType,
    authScopes: { operation: 'tensions.history' },
    description: operationDescription('tensions.history'),
    ...listLimit(historyQuery),
    args: describedArgs({ id: t.arg.id({ required: true }), limit: t.arg.int(), cursor: t.arg.string() }, historyQuery),
    resolve: async (_root, { id, ...page }, context) => unwrap(await getTensionHistory(context.deps, gqlCtx(context), String(id), withoutNulls(page))),
  }),
}));
