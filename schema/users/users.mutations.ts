import { builder } from '../builder.js';
import { UserTypeEnum } from '../enums.js';
import { gqlCtx } from '../context.js';
import { done, idempotencyKeyArg, idempotentMutation } from '../idempotency.js';
import {
  createUser,
  deactivateUser,
  reactivateUser,
  resetUserPassword,
  setUserRoles,
  updateUser,
} from '../../server/application/users/users.js';
import { createMyApiKey, provisionApiKey, revokeMyApiKey, revokeUserApiKey, rotateMyApiKey, rotateUserApiKey } from '../../server/application/users/api-keys.js';
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
  fields: (t) => ({
    name: t.string(),
    email: t.string(),
    linkedActorId: t.id({ description: 'null unlinks' }),
    expectedVersion: t.int({ description: 'refuse with VERSION_CONFLICT unless the user is at this version' }),
  }),
});

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    expiresAt: t.field({ type: 'DateTime' }),
    permissions: t.stringList({ description: "narrow the key to these permissions (each one the user holds); null: all of the user's" }),
  }),
});

const RotateApiKeyInput = builder.inputType('RotateApiKeyInput', {
  fields: (t) => ({
    overlapSeconds: t.int({ description: 'how long the old key keeps working, 0–604800 seconds; 0 (the default) stops it at once' }),
  }),
});

/** GraphQL sends explicit nulls for left-out optional fields; the use case reads them as absent. */
const rotation = (input: { overlapSeconds?: number | null } | null | undefined) => ({ overlapSeconds: input?.overlapSeconds ?? undefined });

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
    args: { input: t.arg({ type: CreateUserInput, required: true }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_r, args, context) => idempotentMutation(context, 'createUser', args, () => createUser(context.deps, gqlCtx(context), args.input)),
  }),
  updateUser: t.field({
    type: UserRef,
    authScopes: { operation: 'users.update' },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateUserInput, required: true }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'updateUser', args, () => updateUser(context.deps, gqlCtx(context), String(args.id), updatePatch(args.input))),
  }),
  deactivateUser: t.field({
    type: UserRef,
    authScopes: { operation: 'users.deactivate' },
    args: { id: t.arg.id({ required: true }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_r, args, context) => idempotentMutation(context, 'deactivateUser', args, () => deactivateUser(context.deps, gqlCtx(context), String(args.id))),
  }),
  reactivateUser: t.field({
    type: UserRef,
    description: 'Makes a deactivated user active again; its sessions and keys stay revoked. An active user is answered unchanged.',
    authScopes: { operation: 'users.reactivate' },
    args: { id: t.arg.id({ required: true }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_r, args, context) => idempotentMutation(context, 'reactivateUser', args, () => reactivateUser(context.deps, gqlCtx(context), String(args.id))),
  }),
  setUserRoles: t.field({
    type: UserRef,
    authScopes: { operation: 'users.setRoles' },
    args: {
      id: t.arg.id({ required: true }),
      roleIds: t.arg.idList({ required: true, description: 'The complete set of roles the user holds afterwards (it replaces the current set).' }),
      expectedVersion: t.arg.int({ description: 'refuse with VERSION_CONFLICT unless the user is at this version' }),
      idempotencyKey: idempotencyKeyArg(t.arg),
    },
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'setUserRoles', args, () =>
        setUserRoles(context.deps, gqlCtx(context), String(args.id), { roleIds: args.roleIds.map(String), expectedVersion: args.expectedVersion }),
      ),
  }),
  resetUserPassword: t.boolean({
    authScopes: { operation: 'users.resetPassword' },
    args: {
      id: t.arg.id({ required: true }),
      password: t.arg.string({ required: true, description: 'The new password, 12-256 characters.' }),
      idempotencyKey: idempotencyKeyArg(t.arg),
    },
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'resetUserPassword', args, async () =>
        done(await resetUserPassword(context.deps, gqlCtx(context), String(args.id), { password: args.password })),
      ),
  }),
  provisionApiKey: t.field({
    type: CreatedApiKeyRef,
    authScopes: { operation: 'users.provisionApiKey' },
    args: { userId: t.arg.id({ required: true }), input: t.arg({ type: CreateApiKeyInput, required: true }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'provisionApiKey', args, () => provisionApiKey(context.deps, gqlCtx(context), String(args.userId), args.input)),
  }),
  revokeApiKey: t.boolean({
    authScopes: { operation: 'users.revokeApiKey' },
    args: { userId: t.arg.id({ required: true }), keyId: t.arg.id({ required: true }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'revokeApiKey', args, async () =>
        done(await revokeUserApiKey(context.deps, gqlCtx(context), String(args.userId), String(args.keyId))),
      ),
  }),
  rotateUserApiKey: t.field({
    type: CreatedApiKeyRef,
    description: "A new key copying the old one's name, permissions and expiry; the old key stops working after the overlap.",
    authScopes: { operation: 'users.rotateApiKey' },
    args: { userId: t.arg.id({ required: true }), keyId: t.arg.id({ required: true }), input: t.arg({ type: RotateApiKeyInput }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'rotateUserApiKey', args, () =>
        rotateUserApiKey(context.deps, gqlCtx(context), String(args.userId), String(args.keyId), rotation(args.input)),
      ),
  }),
  createMyApiKey: t.field({
    type: CreatedApiKeyRef,
    authScopes: { operation: 'me.createApiKey' },
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_r, args, context) => idempotentMutation(context, 'createMyApiKey', args, () => createMyApiKey(context.deps, gqlCtx(context), args.input)),
  }),
  rotateMyApiKey: t.field({
    type: CreatedApiKeyRef,
    description: "A new key copying the old one's name, permissions and expiry; the old key stops working after the overlap.",
    authScopes: { operation: 'me.rotateApiKey' },
    args: { keyId: t.arg.id({ required: true }), input: t.arg({ type: RotateApiKeyInput }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'rotateMyApiKey', args, () => rotateMyApiKey(context.deps, gqlCtx(context), String(args.keyId), rotation(args.input))),
  }),
  revokeMyApiKey: t.boolean({
    authScopes: { operation: 'me.revokeApiKey' },
    args: { keyId: t.arg.id({ required: true }), idempotencyKey: idempotencyKeyArg(t.arg) },
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'revokeMyApiKey', args, async () => done(await revokeMyApiKey(context.deps, gqlCtx(context), String(args.keyId)))),
  }),
}));
