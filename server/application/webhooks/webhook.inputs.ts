// The webhook operations' inputs and answers as zod schemas (SPEC §14): the use cases (webhooks.ts) parse
// with them, and the registry (webhooks.operations.ts) hands them to every face with their descriptions.
import { z } from 'zod';
import { TENSION_EVENT_TYPES } from '../../domain/tension.types.js';
import { cursorParam, cursorSchema, pageLimit } from '../paging.js';
import { codePoints } from '../schemas.js';
import { expectedVersionOf } from '../versions.js';

export const WEBHOOK_TYPES: readonly string[] = [...TENSION_EVENT_TYPES];
export const OVERLAP_MAX_SECONDS = 604_800;
export const URL_MAX = 2048;
/** Endpoints per service: a bound on the work one caller can hand the dispatcher. */
export const ENDPOINTS_MAX = 100;
/** Test messages waiting per endpoint. */
export const PENDING_TESTS_MAX = 5;
/** Events one replay call queues at most; the answer's `nextCursor` continues. */
export const REPLAY_MAX = 10_000;

const url = z
  .string()
  .max(URL_MAX)
  .describe(
    `Where to POST each event: an https URL (http too when WEBHOOK_ALLOW_PRIVATE=true), at most ${URL_MAX} characters, whose host resolves only to public addresses.`,
  );
const description = z
  .string()
  .transform((s) => s.trim())
  .refine((s) => codePoints(s) <= 500, 'must be at most 500 characters')
  .meta({ maxLength: 500 })
  .nullable()
  .describe('What the endpoint is for, at most 500 characters; null clears it.');
const types = z
  .array(
    z
      .string()
      .refine((t) => WEBHOOK_TYPES.includes(t), { message: `must be one of ${WEBHOOK_TYPES.join(', ')}` })
      .meta({ enum: [...WEBHOOK_TYPES] }),
  )
  .min(1)
  .max(WEBHOOK_TYPES.length)
  .transform((ts) => [...new Set(ts)])
  .nullable()
  .describe(`Only these event types (${WEBHOOK_TYPES.join(', ')}); null or omitted: every event.`);
const enabled = z.boolean().describe('false: nothing is sent until it is enabled again (then from the events after that moment).');

export const createWebhookInput = z.strictObject({
  url,
  description: description.optional(),
  types: types.optional(),
  enabled: enabled.optional(),
});

export const updateWebhookInput = z.strictObject({
  url: url.optional(),
  description: description.optional(),
  types: types.optional(),
  enabled: enabled.optional(),
  expectedVersion: expectedVersionOf('endpoint').describe('Refuse with version_conflict, writing nothing, unless the endpoint is at this version.'),
});

export const rotateWebhookSecretInput = z.strictObject({
  overlapSeconds: z
    .number()
    .int()
    .min(0)
    .max(OVERLAP_MAX_SECONDS)
    .default(0)
    .describe(`For how many seconds (0-${OVERLAP_MAX_SECONDS}) the old secret keeps signing beside the new one; 0 when omitted: it stops at once.`),
});

export const listWebhooksInput = z.strictObject({ limit: pageLimit, cursor: cursorSchema });

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'retrying', 'failed'] as const;
const blankToUndefined = (v: unknown) => (v === null || v === '' ? undefined : v);
export const listDeliveriesInput = z.strictObject({
  status: z.preprocess(blankToUndefined, z.enum(DELIVERY_STATUSES).optional()).describe('Only deliveries in this status.'),
  limit: pageLimit,
  cursor: cursorSchema,
});

/** The deliveries list's filter, for its total. */
export const countDeliveriesInput = listDeliveriesInput.pick({ status: true });

export const replayWebhookInput = z.strictObject({
  after: cursorParam.describe(
    "Send again every matching event after this feed cursor (an event page's nextCursor, §10). At most 10,000 a call: continue from the answer's nextCursor.",
  ),
});

// ---- answers, as schemas (the OpenAPI document) ----------------------------------------------------------

export const webhookOutput = z.object({
  id: z.string().describe('The endpoint id (a UUID).'),
  url: z.string().describe('Where each event is POSTed.'),
  description: z.string().nullable().describe('What it is for.'),
  types: z.array(z.string()).nullable().describe('The event types it receives; null: every event.'),
  enabled: z.boolean().describe('false: nothing is sent.'),
  disabledReason: z
    .enum(['manual', 'gone', 'failing'])
    .nullable()
    .describe(
      'Why it is disabled: `manual` (enabled set to false), `gone` (it answered 410), `failing` (five days of nothing but failures); null when enabled.',
    ),
  previousSecretExpiresAt: z
    .string()
    .nullable()
    .describe('Until when the secret before the last rotation still signs beside the current one; null when it does not.'),
  failingSince: z.string().nullable().describe('When its current run of failed attempts began; null when the last attempt succeeded.'),
  version: z.number().int().describe('1 on creation, +1 on every change; send it back as expectedVersion.'),
  createdAt: z.string().describe('ISO 8601.'),
  updatedAt: z.string().describe('ISO 8601.'),
});
export const webhookWithSecretOutput = webhookOutput.extend({
  secret: z.string().describe('The signing secret (`whsec_` + base64), in this answer only: store it now.'),
});
export const webhookPageOutput = z.object({
  data: z.array(webhookOutput).describe('This page of endpoints.'),
  nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
});
export const deliveryOutput = z.object({
  id: z.string().describe('The delivery id (a UUID).'),
  eventId: z.string().nullable().describe('The event delivered (also the `webhook-id` header); null for a test message.'),
  eventType: z.string().describe('The event type, or `webhook.test`.'),
  attempts: z.number().int().describe('Attempts made so far.'),
  status: z
    .enum(DELIVERY_STATUSES)
    .describe('pending (not attempted yet, or an attempt is running), succeeded, retrying (a retry is scheduled), failed (no retry left).'),
  lastResponseStatus: z.number().int().nullable().describe("The last attempt's HTTP status; null when no answer came."),
  lastResponseBody: z.string().nullable().describe("At most 1 KB of the last answer's body."),
  lastError: z.string().nullable().describe('Why the last attempt failed; null when it succeeded.'),
  durationMs: z.number().int().nullable().describe('How long the last attempt took.'),
  createdAt: z.string().describe('ISO 8601.'),
  lastAttemptAt: z.string().nullable().describe('When the last attempt began.'),
  nextAttemptAt: z.string().nullable().describe('When it is attempted next; null when it has succeeded or failed.'),
});
export const deliveryPageOutput = z.object({
  data: z.array(deliveryOutput).describe('This page of deliveries, newest first.'),
  nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
});
export const replayOutput = z.object({
  queued: z.number().int().describe('Deliveries this call queued.'),
  nextCursor: z.string().nullable().describe('When the call stopped at its limit: replay again with this as `after`; null when every event is queued.'),
});
