// Webhook use cases (SPEC §14): endpoints (the secret shown once), secret rotation with overlap, test
// messages, the delivery log, retry and replay. The dispatcher (dispatcher.ts) does the sending.
//
// No escalation: an endpoint receives every event it matches, as a feed reader would, so creating,
// redirecting, replaying to or testing one also needs `events:read` (403 escalation_denied otherwise).
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { hasPermission } from '../../domain/permissions.js';
import { ok, refuse, validationFailed, type Refusal, type Result } from '../../domain/errors.js';
import { authorize, callerGrants } from '../authorize.js';
import type { Ctx, Deps } from '../context.js';
import { parseInput } from '../validate.js';
import { idOf } from '../schemas.js';
import { decodeCursor, instantKey, toPage, uuidKey, type Page } from '../paging.js';
import { reader, transact } from '../../persistence/transaction.js';
import { feedHead, readFeed, type FeedCursor, type StoredEvent } from '../../persistence/event-store.js';
import * as store from '../../persistence/webhooks.js';
import { diffFields, fieldsOf, recordAudit } from '../audit/audit.js';
import { staleVersion } from '../versions.js';
import { boundedTotal, TOTAL_BOUND, type ListTotal } from '../list-total.js';
import { encodeFeedCursor, resolveAfter, toFeedEventView } from '../events/events.js';
import { checkDestination, systemResolver } from './destination.js';
import {
  createWebhookInput,
  ENDPOINTS_MAX,
  countDeliveriesInput,
  listDeliveriesInput,
  listWebhooksInput,
  PENDING_TESTS_MAX,
  REPLAY_MAX,
  replayWebhookInput,
  rotateWebhookSecretInput,
  updateWebhookInput,
} from './webhook.inputs.js';

export interface WebhookView {
  id: string;
  url: string;
  description: string | null;
  types: string[] | null;
  enabled: boolean;
  /** why it is disabled: `manual` (someone set enabled=false), `gone` (410), `failing` (five days of failures) */
  disabledReason: store.DisabledReason | null;
  /** until when the secret before the last rotation still signs beside the current one; null when it does not */
  previousSecretExpiresAt: string | null;
  /** the start of an unbroken run of failed attempts; null when the last attempt succeeded */
  failingSince: string | null;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export type WebhookWithSecret = WebhookView & { secret: string };

export interface DeliveryView {
  id: string;
  eventId: string | null;
  eventType: string;
  attempts: number;
  status: store.DeliveryStatus;
  lastResponseStatus: number | null;
  lastResponseBody: string | null;
  lastError: string | null;
  durationMs: number | null;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toWebhookView(e: store.EndpointRow, now: Date): WebhookView {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    types: e.types,
    enabled: e.enabled,
    disabledReason: e.disabledReason,
    previousSecretExpiresAt: e.previousSecretUntil && e.previousSecretUntil > now ? e.previousSecretUntil.toISOString() : null,
    failingSince: iso(e.failingSince),
    version: e.version,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

export function toDeliveryView(d: store.DeliveryRow): DeliveryView {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    attempts: d.attempts,
    status: d.status,
    lastResponseStatus: d.lastResponseStatus,
    lastResponseBody: d.lastResponseBody,
    lastError: d.lastError,
    durationMs: d.durationMs,
    createdAt: d.createdAt.toISOString(),
    lastAttemptAt: iso(d.lastAttemptAt),
    nextAttemptAt: d.status === 'pending' || d.status === 'retrying' ? iso(d.nextAttemptAt ?? d.createdAt) : null,
  };
}

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks; SPEC §14 asks for at least 24). */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const notFound = (id: string) => refuse('not_found', `No webhook endpoint ${id}.`);
const webhookTarget = (id: string, url: string) => ({ type: 'webhook' as const, id, label: url });

function feedRefusal(ctx: Ctx): Refusal | null {
  if (hasPermission(callerGrants(ctx.caller), 'events:read')) return null;
  return refuse('escalation_denied', 'An endpoint receives the event feed: you need events:read to point one somewhere.', {
    missingPermissions: ['events:read'],
  });
}

/** The URL rules of SPEC §14 at creation or change: a 400 on `url` naming why. */
async function urlRefusal(deps: Deps, url: string): Promise<Refusal | null> {
  const checked = await checkDestination(url, { allowPrivate: deps.config.webhookAllowPrivate, resolve: deps.resolveHost ?? systemResolver });
  if (checked.ok) return null;
  return validationFailed(
    [{ path: 'url', message: checked.reason, code: 'invalid_value', params: {} }],
    `The webhook URL is not allowed: it ${checked.reason}.`,
  );
}

export async function listWebhooks(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<Page<WebhookView>>> {
  const denied = authorize(ctx, 'webhooks.list');
  if (denied) return denied;
  const parsed = parseInput(listWebhooksInput, input);
  if (!parsed.ok) return parsed;
  const after = parsed.value.cursor === undefined ? ok(undefined) : decodeCursor(deps, 'webhooks', parsed.value.cursor, z.tuple([instantKey, uuidKey]));
  if (!after.ok) return after;
  const rows = await store.listEndpointRows(reader(deps.orm), after.value, parsed.value.limit + 1);
  const now = deps.clock();
  return ok(
    toPage(
      deps,
      'webhooks',
      rows,
      parsed.value.limit,
      (r) => [r.createdAt.toISOString(), r.id],
      (r) => toWebhookView(r, now),
    ),
  );
}

export async function getWebhook(deps: Deps, ctx: Ctx, id: string): Promise<Result<WebhookView>> {
  const denied = authorize(ctx, 'webhooks.get');
  if (denied) return denied;
  const endpointId = idOf(id);
  const row = endpointId ? await store.findEndpoint(reader(deps.orm), endpointId) : null;
  return row ? ok(toWebhookView(row, deps.clock())) : notFound(id);
}

export async function createWebhook(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<WebhookWithSecret>> {
  const denied = authorize(ctx, 'webhooks.create');
  if (denied) return denied;
  const parsed = parseInput(createWebhookInput, input);
  if (!parsed.ok) return parsed;
  const escalation = feedRefusal(ctx);
  if (escalation) return escalation;
  const { url, description = null, types = null, enabled = true } = parsed.value;
  const bad = await urlRefusal(deps, url);
  if (bad) return bad;
  const id = deps.newId();
  const secret = newSecret();
  const now = deps.clock();
  return transact(deps.orm, async (tx) => {
    // One endpoint creation at a time, so the count below holds under concurrency.
    await tx.execute(`select pg_advisory_xact_lock(hashtext('market-service webhook endpoints'))`);
    if ((await store.countEndpoints(tx)) >= ENDPOINTS_MAX) return refuse('not_applicable', `At most ${ENDPOINTS_MAX} webhook endpoints; delete one first.`);
    // Only what is committed after this moment: the feed's head now (earlier events: replay).
    await store.insertEndpoint(tx, { id, url, description, types, enabled, secret, checkpoint: await feedHead(tx), at: now });
    await recordAudit(deps, tx, ctx, { action: 'webhook.created', target: webhookTarget(id, url), changes: fieldsOf({ url, description, types, enabled }) });
    const row = (await store.findEndpoint(tx, id))!;
    return ok({ ...toWebhookView(row, now), secret });
  });
}

export async function updateWebhook(deps: Deps, ctx: Ctx, id: string, input: unknown): Promise<Result<WebhookView>> {
  const denied = authorize(ctx, 'webhooks.update');
  if (denied) return denied;
  const parsed = parseInput(updateWebhookInput, input);
  if (!parsed.ok) return parsed;
  const endpointId = idOf(id);
  if (!endpointId) return notFound(id);
  const { expectedVersion, ...patch } = parsed.value;
  if (patch.url !== undefined || patch.types !== undefined || patch.enabled === true) {
    const escalation = feedRefusal(ctx);
    if (escalation) return escalation;
  }
  if (patch.url !== undefined) {
    const bad = await urlRefusal(deps, patch.url);
    if (bad) return bad;
  }
  const now = deps.clock();
  // Enabled again: from the events after this moment (what came while it was off: replay).
  const resumeAt = patch.enabled === true ? await feedHead(deps.orm.em.fork()) : undefined;
  return transact(deps.orm, async (tx) => {
    const current = await store.findEndpoint(tx, endpointId, true);
    if (!current) return notFound(id);
    const stale = staleVersion('webhook endpoint', current.version, expectedVersion ?? undefined);
    if (stale) return stale;
    const changes = diffFields(current, patch);
    if (Object.keys(changes).length === 0) return ok(toWebhookView(current, now));
    const enabled = patch.enabled ?? current.enabled;
    await store.updateEndpointRow(tx, endpointId, {
      url: patch.url ?? current.url,
      description: patch.description === undefined ? current.description : patch.description,
      types: patch.types === undefined ? current.types : patch.types,
      enabled,
      disabledReason: enabled ? null : patch.enabled === false ? 'manual' : current.disabledReason,
      resumeAt: patch.enabled === true && !current.enabled ? resumeAt : undefined,
      at: now,
    });
    await recordAudit(deps, tx, ctx, { action: 'webhook.updated', target: webhookTarget(endpointId, patch.url ?? current.url), changes });
    return ok(toWebhookView((await store.findEndpoint(tx, endpointId))!, now));
  });
}

export async function deleteWebhook(deps: Deps, ctx: Ctx, id: string): Promise<Result<null>> {
  const denied = authorize(ctx, 'webhooks.delete');
  if (denied) return denied;
  const endpointId = idOf(id);
  if (!endpointId) return notFound(id);
  return transact(deps.orm, async (tx) => {
    const current = await store.findEndpoint(tx, endpointId, true);
    if (!current) return notFound(id);
    await store.deleteEndpointRow(tx, endpointId);
    await recordAudit(deps, tx, ctx, {
      action: 'webhook.deleted',
      target: webhookTarget(endpointId, current.url),
      changes: fieldsOf({ url: current.url, description: current.description, types: current.types }, true),
    });
    return ok(null);
  });
}

export async function rotateWebhookSecret(deps: Deps, ctx: Ctx, id: string, input: unknown): Promise<Result<WebhookWithSecret>> {
  const denied = authorize(ctx, 'webhooks.rotateSecret');
  if (denied) return denied;
  const parsed = parseInput(rotateWebhookSecretInput, input ?? {});
  if (!parsed.ok) return parsed;
  const endpointId = idOf(id);
  if (!endpointId) return notFound(id);
  const now = deps.clock();
  const { overlapSeconds } = parsed.value;
  const secret = newSecret();
  return transact(deps.orm, async (tx) => {
    const current = await store.findEndpoint(tx, endpointId, true);
    if (!current) return notFound(id);
    await store.rotateSecretRow(tx, endpointId, secret, overlapSeconds > 0 ? new Date(now.getTime() + overlapSeconds * 1000) : null, now);
    await recordAudit(deps, tx, ctx, {
      action: 'webhook.secret_rotated',
      target: webhookTarget(endpointId, current.url),
      changes: { overlapSeconds: { from: null, to: overlapSeconds } },
    });
    return ok({ ...toWebhookView((await store.findEndpoint(tx, endpointId))!, now), secret });
  });
}

export async function sendTestMessage(deps: Deps, ctx: Ctx, id: string): Promise<Result<DeliveryView>> {
  const denied = authorize(ctx, 'webhooks.test');
  if (denied) return denied;
  const escalation = feedRefusal(ctx);
  if (escalation) return escalation;
  const endpointId = idOf(id);
  if (!endpointId) return notFound(id);
  const now = deps.clock();
  return transact(deps.orm, async (tx) => {
    const current = await store.findEndpoint(tx, endpointId, true);
    if (!current) return notFound(id);
    if (!current.enabled) return refuse('not_applicable', 'The endpoint is disabled: enable it to send a test message.');
    if ((await store.pendingTests(tx, endpointId)) >= PENDING_TESTS_MAX) {
      return refuse('rate_limited', `At most ${PENDING_TESTS_MAX} test messages wait for one endpoint; try again once they are sent.`, {
        retryAfterSeconds: 5,
      });
    }
    const deliveryId = deps.newId();
    const payload = { type: 'webhook.test', timestamp: now.toISOString(), data: { endpointId, message: 'A test message from the market service.' } };
    await store.insertDeliveries(
      tx,
      endpointId,
      [{ id: deliveryId, messageId: `msg_${deliveryId}`, eventId: null, eventType: 'webhook.test', stream: null, payload }],
      now,
    );
    return ok(toDeliveryView((await store.findDelivery(tx, endpointId, deliveryId))!));
  });
}

const deliveryCursorKey = z.tuple([instantKey, z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)]);

export async function listDeliveries(deps: Deps, ctx: Ctx, id: string, input: unknown): Promise<Result<Page<DeliveryView>>> {
  const denied = authorize(ctx, 'webhooks.listDeliveries');
  if (denied) return denied;
  const parsed = parseInput(listDeliveriesInput, input);
  if (!parsed.ok) return parsed;
  const endpointId = idOf(id);
  const em = reader(deps.orm);
  if (!endpointId || !(await store.findEndpoint(em, endpointId))) return notFound(id);
  const before = parsed.value.cursor === undefined ? ok(undefined) : decodeCursor(deps, 'webhookDeliveries', parsed.value.cursor, deliveryCursorKey);
  if (!before.ok) return before;
  const rows = await store.listDeliveryRows(em, endpointId, parsed.value.status, before.value, parsed.value.limit + 1);
  return ok(toPage(deps, 'webhookDeliveries', rows, parsed.value.limit, (r) => [r.createdAt.toISOString(), r.seq], toDeliveryView));
}

/** How many of an endpoint's deliveries the list's filter matches, exact up to TOTAL_BOUND (a count with a LIMIT). */
export async function countDeliveries(deps: Deps, ctx: Ctx, id: string, input: unknown): Promise<Result<ListTotal>> {
  const denied = authorize(ctx, 'webhooks.countDeliveries');
  if (denied) return denied;
  const parsed = parseInput(countDeliveriesInput, input);
  if (!parsed.ok) return parsed;
  const endpointId = idOf(id);
  const em = reader(deps.orm);
  if (!endpointId || !(await store.findEndpoint(em, endpointId))) return notFound(id);
  return ok(boundedTotal(await store.countDeliveryRows(em, endpointId, parsed.value.status, TOTAL_BOUND)));
}

export async function retryDelivery(deps: Deps, ctx: Ctx, id: string, deliveryId: string): Promise<Result<DeliveryView>> {
  const denied = authorize(ctx, 'webhooks.retryDelivery');
  if (denied) return denied;
  const endpointId = idOf(id);
  const delivery = idOf(deliveryId);
  if (!endpointId || !delivery) return refuse('not_found', `No delivery ${deliveryId} of webhook endpoint ${id}.`);
  return transact(deps.orm, async (tx) => {
    const row = await store.retryDeliveryRow(tx, endpointId, delivery, deps.clock());
    return row ? ok(toDeliveryView(row)) : refuse('not_found', `No delivery ${deliveryId} of webhook endpoint ${id}.`);
  });
}

export interface ReplayView {
  /** deliveries queued by this call */
  queued: number;
  /** where to continue when this call stopped at its limit; null when every event up to now is queued */
  nextCursor: string | null;
}

export async function replayWebhook(deps: Deps, ctx: Ctx, id: string, input: unknown): Promise<Result<ReplayView>> {
  const denied = authorize(ctx, 'webhooks.replay');
  if (denied) return denied;
  const parsed = parseInput(replayWebhookInput, input);
  if (!parsed.ok) return parsed;
  const escalation = feedRefusal(ctx);
  if (escalation) return escalation;
  const endpointId = idOf(id);
  if (!endpointId) return notFound(id);
  const after = await resolveAfter(deps, parsed.value.after);
  if (!after.ok) return after;
  const now = deps.clock();
  return transact(deps.orm, async (tx) => {
    const current = await store.findEndpoint(tx, endpointId, true);
    if (!current) return notFound(id);
    // Up to the endpoint's checkpoint: what lies past it is on its way anyway.
    const [cp] = await tx.execute<{ tid: string; pos: string }[]>(
      'select checkpoint_tid::text as tid, checkpoint_pos as pos from webhook_endpoints where id = ?',
      [endpointId],
    );
    const checkpoint: FeedCursor = { transactionId: cp.tid, position: Number(cp.pos) };
    let cursor = after.value;
    let queued = 0;
    let more = false;
    while (queued < REPLAY_MAX) {
      const page = await readFeed(tx, cursor, Math.min(1000, REPLAY_MAX - queued), current.types ? { types: current.types } : {});
      const events = page.events.filter(
        (e) =>
          BigInt(e.transactionId) < BigInt(checkpoint.transactionId) || (e.transactionId === checkpoint.transactionId && e.position <= checkpoint.position),
      );
      await store.insertDeliveries(
        tx,
        endpointId,
        events.map((e) => deliveryOfEvent(deps.newId(), e)),
        now,
      );
      queued += events.length;
      if (events.length < page.events.length || page.events.length === 0) break;
      cursor = page.next;
      if (queued >= REPLAY_MAX) more = true;
    }
    return ok({ queued, nextCursor: more ? encodeFeedCursor(deps, cursor) : null });
  });
}

/** The delivery of a feed event: its row names the event, whose body (`bodyOfEvent`) is built at each attempt. */
export function deliveryOfEvent(id: string, e: StoredEvent): store.NewDelivery {
  return { id, messageId: e.id, eventId: e.id, eventType: e.type, stream: e.streamId, payload: null };
}

/** The Standard Webhooks body `{type, timestamp, data}` of a feed event, with the event as the feed shows it. */
export function bodyOfEvent(e: StoredEvent): string {
  const view = toFeedEventView(e);
  return JSON.stringify({ type: e.type, timestamp: view.occurredAt, data: view });
}
