// /webhooks: endpoints, their secrets, deliveries, retry and replay (SPEC §14).
import { Router } from 'express';
import type { Deps } from '../application/context.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  replayWebhook,
  retryDelivery,
  rotateWebhookSecret,
  sendTestMessage,
  updateWebhook,
} from '../application/webhooks/webhooks.js';
import { WEBHOOK_OPERATIONS as W } from '../application/webhooks/operations.js';
import { handle } from './handle.js';

export function webhooksRoutes(deps: Deps): Router {
  const router = Router();
  const id = (p: unknown) => String(p);
  router.get(
    W['webhooks.list'].rest.path,
    handle(deps, (d, ctx, req) => listWebhooks(d, ctx, req.query)),
  );
  router.post(
    W['webhooks.create'].rest.path,
    handle(deps, (d, ctx, req) => createWebhook(d, ctx, req.body), { status: W['webhooks.create'].rest.status }),
  );
  router.get(
    W['webhooks.get'].rest.path,
    handle(deps, (d, ctx, req) => getWebhook(d, ctx, id(req.params.id))),
  );
  router.patch(
    W['webhooks.update'].rest.path,
    handle(deps, (d, ctx, req) => updateWebhook(d, ctx, id(req.params.id), req.body)),
  );
  router.delete(
    W['webhooks.delete'].rest.path,
    handle(deps, (d, ctx, req) => deleteWebhook(d, ctx, id(req.params.id)), { status: 204 }),
  );
  router.post(
    W['webhooks.rotateSecret'].rest.path,
    handle(deps, (d, ctx, req) => rotateWebhookSecret(d, ctx, id(req.params.id), req.body), { status: W['webhooks.rotateSecret'].rest.status }),
  );
  router.post(
    W['webhooks.test'].rest.path,
    handle(deps, (d, ctx, req) => sendTestMessage(d, ctx, id(req.params.id)), { status: W['webhooks.test'].rest.status }),
  );
  router.get(
    W['webhooks.listDeliveries'].rest.path,
    handle(deps, (d, ctx, req) => listDeliveries(d, ctx, id(req.params.id), req.query)),
  );
  router.post(
    W['webhooks.retryDelivery'].rest.path,
    handle(deps, (d, ctx, req) => retryDelivery(d, ctx, id(req.params.id), id(req.params.deliveryId)), { status: W['webhooks.retryDelivery'].rest.status }),
  );
  router.post(
    W['webhooks.replay'].rest.path,
    handle(deps, (d, ctx, req) => replayWebhook(d, ctx, id(req.params.id), req.body), { status: W['webhooks.replay'].rest.status }),
  );
  return router;
}
