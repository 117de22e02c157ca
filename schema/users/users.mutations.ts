import { builder } from '../builder.js';
import { UserTypeEnum } from '../enums.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import {
  createUser,
  deactivateUser,
  resetUserPassword,
  setUserRoles,
  updateUser,
} from '../../server/application/users/users.js';
import { createMyApiKey, provisionApiKey, revokeMyApiKey, revokeUserApiKey } from '../../server/application/users/api-keys.js';
import { CreatedApiKeyRef, UserRef } from './users.type.js';

const CreateUserInput = builder.inputType('CreateUserInput', {
  fields: (t) => ({
    type: t.field({ type: UserTypeEnum, description: 'human (the default) or agent; fixed once created' }),
    email: t.string({ required: true }),
    name: t.string({ required: true }),
    password: t.string(),
    linkedActorId: t.id(),
    roleIds: t.idList(),
  }),
});

const UpdateUserInput = builder.inputType('UpdateUserInput', {
  fields: (t) => ({ name: t.string(), email: t.string(), linkedActorId: t.id({ description: 'null unlinks' }) }),
});

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({ name: t.string({ required: true }), expiresAt: t.field({ type: 'DateTime' }) }),
});

/** Name and email cannot be cleared: an explicit null means "unchanged"; linkedActorId null unlinks. */
const updatePatch = ({ name, email, ...rest }: Record<string, unknown>) => ({
  ...(name != null ? { name } : {}),
  ...(email != null ? { email } : {}),
  ...rest,
});

builder.mutationFields((t) => ({
  createUser: t.field({
    type: UserRef,
    authScopes: { operation: 'users.create' },
    args: { input: t.arg({ type: CreateUserInput, required: true }) },
    resolve: async (_r, args, context) => unwrap(await createUser(context.deps, gqlCtx(context), args.input)),
  }),
  updateUser: t.field({
    type: UserRef,
    authScopes: { operation: 'users.update' },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateUserInput, required: true }) },
    resolve: async (_r, args, context) =>
      unwrap(await updateUser(context.deps, gqlCtx(context), String(args.id), updatePatch(args.input))),
  }),
  deactivateUser: t.field({
    type: UserRef,
    authScopes: { operation: 'users.deactivate' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, args, context) => unwrap(await deactivateUser(context.deps, gqlCtx(context), String(args.id))),
  }),
  setUserRoles: t.field({
    type: UserRef,
    authScopes: { operation: 'users.setRoles' },
    args: { id: t.arg.id({ required: true }), roleIds: t.arg.idList({ required: true, description: 'The complete set of roles the user holds afterwards (it replaces the current set).' }) },
    resolve: async (_r, args, context) =>
      unwrap(await setUserRoles(context.deps, gqlCtx(context), String(args.id), { roleIds: args.roleIds.map(String) })),
  }),
  resetUserPassword: t.boolean({
    authScopes: { operation: 'users.resetPassword' },
    args: { id: t.arg.id({ required: true }), password: t.arg.string({ required: true, description: 'The new password, 12-256 characters.' }) },
    resolve: async (_r, args, context) => {
      unwrap(await resetUserPassword(context.deps, gqlCtx(context), String(args.id), { password: args.password }));
      return true;
    },
  }),
  provisionApiKey: t.field({
    type: CreatedApiKeyRef,
    authScopes: { operation: 'users.provisionApiKey' },
    args: { userId: t.arg.id({ required: true }), input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: async (_r, args, context) =>
      unwrap(await provisionApiKey(context.deps, gqlCtx(context), String(args.userId), args.input)),
  }),
  revokeApiKey: t.boolean({
    authScopes: { operation: 'users.revokeApiKey' },
    args: { userId: t.arg.id({ required: true }), keyId: t.arg.id({ required: true }) },
    resolve: async (_r, args, context) => {
      unwrap(await revokeUserApiKey(context.deps, gqlCtx(context), String(args.userId), String(args.keyId)));
      return true;
    },
  }),
  createMyApiKey: t.field({
    type: CreatedApiKeyRef,
    authScopes: { operation: 'me.createApiKey' },
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: async (_r, args, context) => unwrap(await createMyApiKey(context.deps, gqlCtx(context), args.input)),
  }),
  revokeMyApiKey: t.boolean({
    authScopes: { operation: 'me.revokeApiKey' },
    args: { keyId: t.arg.id({ required: true }) },
    resolve: async (_r, args, context) => {
      unwrap(await revokeMyApiKey(context.deps, gqlCtx(context), String(args.keyId)));
      return true;
    },
  }),
}));
