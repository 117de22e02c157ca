import { builder } from '../builder.js';
import { describedArgs, describedBy, inputDescription, operationDescription } from '../described.js';
import { createWebhookInput, updateWebhookInput } from '../../server/application/webhooks/operations.js';
import { gqlCtx } from '../context.js';
import { done, idempotencyKeyArg, idempotentMutation } from '../idempotency.js';
import {
  createWebhook,
  deleteWebhook,
  replayWebhook,
  retryDelivery,
  rotateWebhookSecret,
  sendTestMessage,
  updateWebhook,
} from '../../server/application/webhooks/webhooks.js';
import { WebhookDeliveryRef, WebhookRef, WebhookReplayRef, WebhookWithSecretRef } from './webhooks.type.js';

const CreateWebhookInput = builder.inputType('CreateWebhookInput', {
  description: inputDescription('createWebhook'),
  fields: (t) => describedBy(createWebhookInput, { url: t.string({ required: true }), description: t.string(), types: t.stringList(), enabled: t.boolean() }),
});
const UpdateWebhookInput = builder.inputType('UpdateWebhookInput', {
  description: inputDescription('updateWebhook'),
  fields: (t) =>
    describedBy(updateWebhookInput, {
      url: t.string(),
      description: t.string({ description: 'null clears it' }),
      types: t.stringList({ description: 'null: every event' }),
      enabled: t.boolean(),
      expectedVersion: t.int({ description: 'refuse with VERSION_CONFLICT unless the endpoint is at this version' }),
    }),
});

/** Absent fields stay as they are; explicit nulls clear `description` and `types` (a null `url`/`enabled` is no change). */
const patchOf = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([k, v]) => v !== undefined && (v !== null || k === 'description' || k === 'types')));
const dropNulls = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: WebhookWithSecretRef,
    authScopes: { operation: 'webhooks.create' },
    description: operationDescription('webhooks.create'),
    args: describedArgs({ input: t.arg({ type: CreateWebhookInput, required: true }), idempotencyKey: idempotencyKeyArg(t.arg) }),
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'createWebhook', args, () => createWebhook(context.deps, gqlCtx(context), dropNulls(args.input))),
  }),
  updateWebhook: t.field({
    type: WebhookRef,
    authScopes: { operation: 'webhooks.update' },
    description: operationDescription('webhooks.update'),
    args: describedArgs({
      id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateWebhookInput, required: true }),
      idempotencyKey: idempotencyKeyArg(t.arg),
    }),
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'updateWebhook', args, () => updateWebhook(context.deps, gqlCtx(context), String(args.id), patchOf(args.input))),
  }),
  deleteWebhook: t.boolean({
    authScopes: { operation: 'webhooks.delete' },
    description: operationDescription('webhooks.delete'),
    args: describedArgs({ id: t.arg.id({ required: true }), idempotencyKey: idempotencyKeyArg(t.arg) }),
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'deleteWebhook', args, async () => done(await deleteWebhook(context.deps, gqlCtx(context), String(args.id)))),
  }),
  rotateWebhookSecret: t.field({
    type: WebhookWithSecretRef,
    authScopes: { operation: 'webhooks.rotateSecret' },
    description: operationDescription('webhooks.rotateSecret'),
    args: describedArgs({
      id: t.arg.id({ required: true }),
      overlapSeconds: t.arg.int({ description: 'How long the old secret keeps signing beside the new one, in seconds (SPEC §14); default as REST' }),
      idempotencyKey: idempotencyKeyArg(t.arg),
    }),
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'rotateWebhookSecret', args, () =>
        rotateWebhookSecret(context.deps, gqlCtx(context), String(args.id), dropNulls({ overlapSeconds: args.overlapSeconds })),
      ),
  }),
  testWebhook: t.field({
    type: WebhookDeliveryRef,
    authScopes: { operation: 'webhooks.test' },
    description: operationDescription('webhooks.test'),
    args: describedArgs({ id: t.arg.id({ required: true }), idempotencyKey: idempotencyKeyArg(t.arg) }),
    resolve: (_r, args, context) => idempotentMutation(context, 'testWebhook', args, () => sendTestMessage(context.deps, gqlCtx(context), String(args.id))),
  }),
  retryWebhookDelivery: t.field({
    type: WebhookDeliveryRef,
    authScopes: { operation: 'webhooks.retryDelivery' },
    description: operationDescription('webhooks.retryDelivery'),
    args: describedArgs({
      id: t.arg.id({ required: true }),
      deliveryId: t.arg.id({ required: true, description: 'The delivery to attempt again (a UUID)' }),
      idempotencyKey: idempotencyKeyArg(t.arg),
    }),
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'retryWebhookDelivery', args, () => retryDelivery(context.deps, gqlCtx(context), String(args.id), String(args.deliveryId))),
  }),
  replayWebhook: t.field({
    type: WebhookReplayRef,
    authScopes: { operation: 'webhooks.replay' },
    description: operationDescription('webhooks.replay'),
    args: describedArgs({
      id: t.arg.id({ required: true }),
      after: t.arg.string({ required: true, description: 'A feed cursor (nextCursor of the event feed): events after it are queued again' }),
      idempotencyKey: idempotencyKeyArg(t.arg),
    }),
    resolve: (_r, args, context) =>
      idempotentMutation(context, 'replayWebhook', args, () => replayWebhook(context.deps, gqlCtx(context), String(args.id), { after: args.after })),
  }),
}));
