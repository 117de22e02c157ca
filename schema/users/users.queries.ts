// The users area's queries are generated from its registry (server/application/users/users.operations.ts);
// `myApiKeys` is the me area's.
import { builder } from '../builder.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import { listMyApiKeys } from '../../server/application/users/api-keys.js';
import { ApiKeyPageRef } from './users.type.js';

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

builder.queryFields((t) => ({
  myApiKeys: t.field({
    type: ApiKeyPageRef,
    authScopes: { operation: 'me.listApiKeys' },
    args: { limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, args, context) => unwrap(await listMyApiKeys(context.deps, gqlCtx(context), defined(args))),
  }),
}));
