// OpenAPI descriptions of the webhook routes (SPEC §14), from the operations' declarations and schemas.
import {
  createWebhookInput,
  deliveryOutput,
  deliveryPageOutput,
  listDeliveriesInput,
  listWebhooksInput,
  replayOutput,
  replayWebhookInput,
  rotateWebhookSecretInput,
  updateWebhookInput,
  WEBHOOK_OPERATIONS,
  webhookOutput,
  webhookPageOutput,
  webhookWithSecretOutput,
  type WebhookOperation,
} from '../application/webhooks/operations.js';
import type { RouteDoc } from './openapi.js';

const FEED = 'Needs `events:read` besides `webhooks:write`, since the endpoint receives the event feed (403 escalation_denied otherwise).';
const route = (operation: WebhookOperation, doc: Omit<RouteDoc, 'method' | 'path' | 'status' | 'tag' | 'operation'>): RouteDoc => {
  const { rest } = WEBHOOK_OPERATIONS[operation];
  return { method: rest.method, path: rest.path, status: rest.status, tag: 'webhooks', operation, ...doc };
};
const DELIVERY = { deliveryId: 'The delivery id (a UUID).', id: 'The webhook endpoint id (a UUID); an id that is not a UUID is 404 not_found.' };

export const WEBHOOK_ROUTE_DOCS: RouteDoc[] = [
  route('webhooks.list', {
    summary: 'List webhook endpoints',
    query: listWebhooksInput,
    response: webhookPageOutput,
    description: 'Webhook endpoints, oldest first; never a secret.',
  }),
  route('webhooks.create', {
    summary: 'Create a webhook endpoint; its signing secret is in this answer only',
    body: createWebhookInput,
    response: webhookWithSecretOutput,
    errors: ['escalation_denied', 'not_applicable'],
    operationId: 'createWebhook',
    description: `Every event committed from now on that matches \`types\` is POSTed to \`url\`, signed as Standard Webhooks says. The URL must be https and its host must resolve only to public addresses (400 otherwise), unless the service runs with WEBHOOK_ALLOW_PRIVATE=true. The \`secret\` is in this answer only. At most 100 endpoints (422 not_applicable). ${FEED}`,
  }),
  route('webhooks.get', {
    summary: 'Get a webhook endpoint',
    response: webhookOutput,
    operationId: 'getWebhook',
    description: 'One endpoint, without its secret.',
  }),
  route('webhooks.update', {
    summary: 'Change url, types, enabled or description',
    body: updateWebhookInput,
    response: webhookOutput,
    errors: ['escalation_denied', 'version_conflict'],
    operationId: 'updateWebhook',
    description: `Changes the endpoint. Enabled again, it receives the events committed from then on (replay sends earlier ones). With \`expectedVersion\`, writes only if the endpoint is still at that version (409 version_conflict otherwise). Changing \`url\` or \`types\`, or enabling: ${FEED}`,
  }),
  route('webhooks.delete', {
    summary: 'Delete a webhook endpoint and its deliveries',
    operationId: 'deleteWebhook',
    description: 'Deletes the endpoint; nothing more is sent to it (an attempt already running finishes).',
  }),
  route('webhooks.rotateSecret', {
    summary: 'Rotate the signing secret, with an overlap',
    body: rotateWebhookSecretInput,
    bodyRequired: false,
    response: webhookWithSecretOutput,
    operationId: 'rotateWebhookSecret',
    description:
      'A new secret, in this answer only. For `overlapSeconds` the old secret signs too (two signatures in `webhook-signature`), so the receiver can switch without missing a message.',
  }),
  route('webhooks.test', {
    summary: 'Send a webhook.test message',
    response: deliveryOutput,
    errors: ['escalation_denied', 'not_applicable', 'rate_limited'],
    operationId: 'sendWebhookTest',
    description: `Queues a \`webhook.test\` message to the endpoint, sent like any event; the answer is its delivery. At most 5 wait at once per endpoint (429). A disabled endpoint is 422 not_applicable. ${FEED}`,
  }),
  route('webhooks.listDeliveries', {
    summary: "List an endpoint's deliveries",
    query: listDeliveriesInput,
    response: deliveryPageOutput,
    operationId: 'listWebhookDeliveries',
    description: 'Deliveries with their attempts, newest first, optionally of one status.',
  }),
  route('webhooks.retryDelivery', {
    summary: 'Attempt a delivery again now',
    response: deliveryOutput,
    pathParams: DELIVERY,
    operationId: 'retryWebhookDelivery',
    description: 'Makes the delivery due now, whatever its status (a succeeded one is sent once more; the receiver drops repeats by `webhook-id`).',
  }),
  route('webhooks.replay', {
    summary: 'Send every matching event after a feed cursor again',
    body: replayWebhookInput,
    response: replayOutput,
    errors: ['escalation_denied'],
    operationId: 'replayWebhook',
    description: `Queues every event after \`after\` (a feed cursor, §10) that matches the endpoint's types, up to the events already on their way; at most 10,000 a call (continue from \`nextCursor\`). ${FEED}`,
  }),
];
