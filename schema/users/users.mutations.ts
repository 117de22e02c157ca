// The me area's API key mutations; the users area's are generated from its registry (server/application/users/users.operations.ts).
import { builder } from '../builder.js';
import { zodInputType } from '../zod-input.js';
import { gqlCtx } from '../context.js';
import { done, idempotencyKeyArg, idempotentMutation } from '../idempotency.js';
import { createApiKeyInput, rotateApiKeyInput, createMyApiKey, revokeMyApiKey, rotateMyApiKey } from '../../server/application/users/api-keys.js';
import { CreatedApiKeyRef } from './users.type.js';

const CreateApiKeyInput = zodInputType('CreateApiKeyInput', createApiKeyInput);
const RotateApiKeyInput = zodInputType('RotateApiKeyInput', rotateApiKeyInput);

/** GraphQL sends explicit nulls for left-out optional fields; the use case reads them as absent. */
const rotation = (input: { overlapSeconds?: number | null } | null | undefined) => ({ overlapSeconds: input?.overlapSeconds ?? undefined });

builder.mutationFields((t) => ({
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
