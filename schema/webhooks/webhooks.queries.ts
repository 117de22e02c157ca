import { builder } from '../builder.js';
import { listDeliveriesInput, listWebhooksInput } from '../../server/application/webhooks/operations.js';
import { describedArgs, listLimit, operationDescription } from '../described.js';
import { gqlCtx } from '../context.js';
import { unwrap } from '../errors.js';
import { getWebhook, listDeliveries, listWebhooks } from '../../server/application/webhooks/webhooks.js';
import { WebhookDeliveryPageRef, WebhookPageRef, WebhookRef } from './webhooks.type.js';

builder.queryFields((t) => ({
  webhooks: t.field({
    type: WebhookPageRef,
    authScopes: { operation: 'webhooks.list' },
    description: operationDescription('webhooks.list'),
    ...listLimit(listWebhooksInput),
    args: describedArgs({ limit: t.arg.int(), cursor: t.arg.string() }, listWebhooksInput),
    resolve: async (_r, args, context) => unwrap(await listWebhooks(context.deps, gqlCtx(context), args)),
  }),
  webhook: t.field({
    type: WebhookRef,
    authScopes: { operation: 'webhooks.get' },
    description: operationDescription('webhooks.get'),
    args: describedArgs({ id: t.arg.id({ required: true }) }),
    resolve: async (_r, args, context) => unwrap(await getWebhook(context.deps, gqlCtx(context), String(args.id))),
  }),
  webhookDeliveries: t.field({
    type: WebhookDeliveryPageRef,
    authScopes: { operation: 'webhooks.listDeliveries' },
    description: operationDescription('webhooks.listDeliveries'),
    ...listLimit(listDeliveriesInput),
    args: describedArgs({ id: t.arg.id({ required: true }), status: t.arg.string(), limit: t.arg.int(), cursor: t.arg.string() }, listDeliveriesInput),
    resolve: async (_r, { id, ...args }, context) => unwrap(await listDeliveries(context.deps, gqlCtx(context), String(id), args)),
  }),
}));
