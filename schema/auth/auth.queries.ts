import { builder } from '../builder.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import { getMe } from '../../server/application/auth/auth.js';
import { MeRef } from './auth.type.js';

builder.queryField('me', (t) =>
  t.field({
    type: MeRef,
    authScopes: { operation: 'me.get' },
    resolve: async (_r, _a, context) => unwrap(await getMe(context.deps, gqlCtx(context))),
  }),
);
