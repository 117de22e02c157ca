import { builder } from '../builder.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import { getWebhook, listDeliveries, listWebhooks } from '../../server/application/webhooks/webhooks.js';
import { WebhookDeliveryPageRef, WebhookPageRef, WebhookRef } from './webhooks.type.js';

builder.queryFields((t) => ({
  webhooks: t.field({
    type: WebhookPageRef,
    authScopes: { operation: 'webhooks.list' },
    args: { limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, args, context) => unwrap(await listWebhooks(context.deps, gqlCtx(context), args)),
  }),
  webhook: t.field({
    type: WebhookRef,
    authScopes: { operation: 'webhooks.get' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, args, context) => unwrap(await getWebhook(context.deps, gqlCtx(context), String(args.id))),
  }),
  webhookDeliveries: t.field({
    type: WebhookDeliveryPageRef,
    authScopes: { operation: 'webhooks.listDeliveries' },
    args: { id: t.arg.id({ required: true }), status: t.arg.string(), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, { id, ...args }, context) => unwrap(await listDeliveries(context.deps, gqlCtx(context), String(id), args)),
  }),
}));
