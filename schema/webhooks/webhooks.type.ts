import { builder } from '../builder.js';
import { deliveryOutput, replayOutput, webhookOutput } from '../../server/application/webhooks/webhook.inputs.js';
import { describedBy, pageDescription, pageFields } from '../described.js';
import type { DeliveryView, ReplayView, WebhookView, WebhookWithSecret } from '../../server/application/webhooks/webhooks.js';
import type { Page } from '../../server/application/paging.js';

export const WebhookRef = builder.objectRef<WebhookView>('Webhook').implement({
  description: 'An endpoint that every matching event is POSTed to, signed as Standard Webhooks says (SPEC §14).',
  fields: (t) =>
    describedBy(webhookOutput, {
      id: t.exposeID('id'),
      url: t.exposeString('url'),
      description: t.exposeString('description', { nullable: true }),
      types: t.exposeStringList('types', { nullable: true, description: 'The event types it receives; null: every event' }),
      enabled: t.exposeBoolean('enabled'),
      disabledReason: t.exposeString('disabledReason', { nullable: true, description: 'manual, gone (it answered 410) or failing (five days of failures)' }),
      previousSecretExpiresAt: t.exposeString('previousSecretExpiresAt', { nullable: true }),
      failingSince: t.exposeString('failingSince', { nullable: true }),
      version: t.exposeInt('version'),
      createdAt: t.exposeString('createdAt'),
      updatedAt: t.exposeString('updatedAt'),
    }),
});

export const WebhookWithSecretRef = builder.objectRef<WebhookWithSecret>('WebhookWithSecret').implement({
  description: 'An endpoint with its signing secret, shown in this answer only.',
  fields: (t) => ({
    webhook: t.field({ type: WebhookRef, description: 'The endpoint as stored.', resolve: ({ secret: _secret, ...view }) => view }),
    secret: t.exposeString('secret', { description: 'whsec_…: store it now, it is not shown again' }),
  }),
});

export const WebhookPageRef = builder.objectRef<Page<WebhookView>>('WebhookPage').implement({
  description: pageDescription('Webhook'),
  fields: (t) => pageFields({ data: t.field({ type: [WebhookRef], resolve: (p) => p.data }), nextCursor: t.exposeString('nextCursor', { nullable: true }) }),
});

export const WebhookDeliveryRef = builder.objectRef<DeliveryView>('WebhookDelivery').implement({
  description: 'One message to an endpoint with its attempts.',
  fields: (t) =>
    describedBy(deliveryOutput, {
      id: t.exposeID('id'),
      eventId: t.exposeString('eventId', { nullable: true }),
      eventType: t.exposeString('eventType'),
      attempts: t.exposeInt('attempts'),
      status: t.exposeString('status', { description: 'pending, succeeded, retrying or failed' }),
      lastResponseStatus: t.exposeInt('lastResponseStatus', { nullable: true }),
      lastResponseBody: t.exposeString('lastResponseBody', { nullable: true }),
      lastError: t.exposeString('lastError', { nullable: true }),
      durationMs: t.exposeInt('durationMs', { nullable: true }),
      createdAt: t.exposeString('createdAt'),
      lastAttemptAt: t.exposeString('lastAttemptAt', { nullable: true }),
      nextAttemptAt: t.exposeString('nextAttemptAt', { nullable: true }),
    }),
});

export const WebhookDeliveryPageRef = builder.objectRef<Page<DeliveryView>>('WebhookDeliveryPage').implement({
  description: pageDescription('WebhookDelivery'),
  fields: (t) =>
    pageFields({ data: t.field({ type: [WebhookDeliveryRef], resolve: (p) => p.data }), nextCursor: t.exposeString('nextCursor', { nullable: true }) }),
});

export const WebhookReplayRef = builder.objectRef<ReplayView>('WebhookReplay').implement({
  description: 'What one replay call queued, and the cursor to continue from when it stopped at its limit.',
  fields: (t) => describedBy(replayOutput, { queued: t.exposeInt('queued'), nextCursor: t.exposeString('nextCursor', { nullable: true }) }),
});
