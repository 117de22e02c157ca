import { builder } from '../builder.js';
import { gqlCtx } from '../context.js';
import { done, idempotencyKeyArg, idempotentMutation } from '../idempotency.js';
import { createRole, createRoleInput, deleteRole, updateRole, updateRoleInput } from '../../server/application/roles/roles.js';
import { zodInputType } from '../zod-input.js';
import { RoleRef } from './roles.type.js';

const CreateRoleInput = zodInputType('CreateRoleInput', createRoleInput);
const UpdateRoleInput = zodInputType('UpdateRoleInput', updateRoleInput);

/** GraphQL sends explicit nulls for cleared optional fields; the use case treats absent and null alike. */
const dropNulls = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

builder.mutationFields((t) => ({
  createRole: t.field({
    type: RoleRef,
    authScopes: { operation: 'roles.create' },
    args: { input: t.arg({ type: CreateRoleInput, required: true }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_r, args, context) => idempotentMutation(context, 'createRole', args, () => createRole(context.deps, gqlCtx(context), args.input)),
  }),
  updateRole: t.field({
    type: RoleRef,
    authScopes: { operation: 'roles.update' },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateRoleInput, required: true }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'updateRole', args, () => updateRole(context.deps, gqlCtx(context), String(args.id), dropNulls(args.input))),
  }),
  deleteRole: t.boolean({
    authScopes: { operation: 'roles.delete' },
    args: { id: t.arg.id({ required: true }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'deleteRole', args, async () => done(await deleteRole(context.deps, gqlCtx(context), String(args.id)))),
  }),
}));
