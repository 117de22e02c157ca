import { builder } from '../builder.js';
import { UserStatusEnum, UserTypeEnum } from '../enums.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import { getUser, listUsers } from '../../server/application/users/users.js';
import { listMyApiKeys, listUserApiKeys } from '../../server/application/users/api-keys.js';
import { ApiKeyPageRef, UserPageRef, UserRef } from './users.type.js';

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

builder.queryFields((t) => ({
  users: t.field({
    type: UserPageRef,
    authScopes: { operation: 'users.list' },
    args: { type: t.arg({ type: UserTypeEnum }), status: t.arg({ type: UserStatusEnum }), q: t.arg.string(), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, args, context) => unwrap(await listUsers(context.deps, gqlCtx(context), defined(args))),
  }),
  user: t.field({
    type: UserRef,
    nullable: true,
    authScopes: { operation: 'users.get' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, args, context) => unwrap(await getUser(context.deps, gqlCtx(context), String(args.id))),
  }),
  userApiKeys: t.field({
    type: ApiKeyPageRef,
    authScopes: { operation: 'users.listApiKeys' },
    args: { userId: t.arg.id({ required: true }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, { userId, ...page }, context) =>
      unwrap(await listUserApiKeys(context.deps, gqlCtx(context), String(userId), defined(page))),
  }),
  myApiKeys: t.field({
    type: ApiKeyPageRef,
    authScopes: { operation: 'me.listApiKeys' },
    args: { limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, args, context) => unwrap(await listMyApiKeys(context.deps, gqlCtx(context), defined(args))),
  }),
}));
