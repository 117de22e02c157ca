import { builder } from '../builder.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import { getRole, listPermissions, listRoles } from '../../server/application/roles/roles.js';
import { RolePageRef, RoleRef } from './roles.type.js';

builder.queryFields((t) => ({
  roles: t.field({
    type: RolePageRef,
    authScopes: { operation: 'roles.list' },
    args: { limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, args, context) => unwrap(await listRoles(context.deps, gqlCtx(context), args)),
  }),
  role: t.field({
    type: RoleRef,
    nullable: true,
    authScopes: { operation: 'roles.get' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, args, context) => unwrap(await getRole(context.deps, gqlCtx(context), String(args.id))),
  }),
  permissions: t.stringList({
    authScopes: { operation: 'permissions.list' },
    resolve: async (_r, _a, context) => unwrap(await listPermissions(context.deps, gqlCtx(context))),
  }),
}));
