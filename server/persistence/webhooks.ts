// Webhook endpoints and deliveries (SPEC §14): the SQL of the use cases and of the dispatcher. An endpoint
// row holds its secrets and its own feed checkpoint; a delivery row its attempts and next-attempt time.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FeedCursor } from './event-store.js';

export type Tx = EntityManager;

export type DisabledReason = 'manual' | 'gone' | 'failing';
export type DeliveryStatus = 'pending' | 'succeeded' | 'retrying' | 'failed';

export interface EndpointRow {
  id: string;
  url: string;
  description: string | null;
  types: string[] | null;
  enabled: boolean;
  disabledReason: DisabledReason | null;
  previousSecretUntil: Date | null;
  failingSince: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What the dispatcher needs beyond the view: the secrets and the checkpoint. Never leaves the server. */
export interface EndpointSecrets {
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: Date | null;
}

export interface DeliveryRow {
  id: string;
  seq: number;
  endpointId: string;
  messageId: string;
  eventId: string | null;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  lastResponseStatus: number | null;
  lastResponseBody: string | null;
  lastError: string | null;
  durationMs: number | null;
  createdAt: Date;
}

const date = (v: Date | string | null) => (v === null ? null : new Date(v));

const ENDPOINT_COLUMNS = `id, url, description, types, enabled, disabled_reason, previous_secret_until, failing_since, version, created_at, updated_at`;

type EndpointRecord = {
  id: string;
  url: string;
  description: string | null;
  types: string[] | null;
  enabled: boolean;
  disabled_reason: DisabledReason | null;
  previous_secret_until: Date | string | null;
  failing_since: Date | string | null;
  version: number;
  created_at: Date | string;
  updated_at: Date | string;
};

function toEndpoint(r: EndpointRecord): EndpointRow {
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    types: r.types,
    enabled: r.enabled,
    disabledReason: r.disabled_reason,
    previousSecretUntil: date(r.previous_secret_until),
    failingSince: date(r.failing_since),
    version: r.version,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

export async function insertEndpoint(
  tx: EntityManager,
  e: { id: string; url: string; description: string | null; types: string[] | null; enabled: boolean; secret: string; checkpoint: FeedCursor; at: Date },
): Promise<void> {
  await tx.execute(
    `insert into webhook_endpoints (id, url, description, types, enabled, disabled_reason, secret, checkpoint_tid, checkpoint_pos, created_at, updated_at)
     values (?, ?, ?, ?::text[], ?, ?, ?, ?::text::xid8, ?, ?, ?)`,
    [
      e.id,
      e.url,
      e.description,
      e.types ? `{${e.types.map((t) => `"${t}"`).join(',')}}` : null,
      e.enabled,
      e.enabled ? null : 'manual',
      e.secret,
      e.checkpoint.transactionId,
      e.checkpoint.position,
      e.at,
      e.at,
    ],
  );
}

export async function countEndpoints(em: EntityManager): Promise<number> {
  const [row] = await em.execute<{ n: number }[]>('select count(*)::int as n from webhook_endpoints');
  return row.n;
}

/** Endpoints in creation order after the key `(createdAt, id)`. */
export async function listEndpointRows(em: EntityManager, after: [string, string] | undefined, limit: number): Promise<EndpointRow[]> {
  const rows = await em.execute<EndpointRecord[]>(
    `select ${ENDPOINT_COLUMNS} from webhook_endpoints
     where (?::timestamptz is null or (created_at, id) > (?::timestamptz, ?::uuid))
     order by created_at, id limit ?`,
    [after?.[0] ?? null, after?.[0] ?? null, after?.[1] ?? null, limit],
  );
  return rows.map(toEndpoint);
}

export async function findEndpoint(em: EntityManager, id: string, lock = false): Promise<EndpointRow | null> {
  const [row] = await em.execute<EndpointRecord[]>(`select ${ENDPOINT_COLUMNS} from webhook_endpoints where id = ?${lock ? ' for update' : ''}`, [id]);
  return row ? toEndpoint(row) : null;
}

export async function updateEndpointRow(
  tx: EntityManager,
  id: string,
  f: {
    url: string;
    description: string | null;
    types: string[] | null;
    enabled: boolean;
    disabledReason: DisabledReason | null;
    resumeAt?: FeedCursor;
    at: Date;
  },
): Promise<void> {
  await tx.execute(
    `update webhook_endpoints set url = ?, description = ?, types = ?::text[], enabled = ?, disabled_reason = ?,
       checkpoint_tid = coalesce(?::text::xid8, checkpoint_tid), checkpoint_pos = coalesce(?::bigint, checkpoint_pos),
       failing_since = case when ? then null else failing_since end,
       version = version + 1, updated_at = ? where id = ?`,
    [
      f.url,
      f.description,
      f.types ? `{${f.types.map((t) => `"${t}"`).join(',')}}` : null,
      f.enabled,
      f.disabledReason,
      f.resumeAt?.transactionId ?? null,
      f.resumeAt?.position ?? null,
      f.resumeAt !== undefined,
      f.at,
      id,
    ],
  );
}

export async function deleteEndpointRow(tx: EntityManager, id: string): Promise<void> {
  await tx.execute('delete from webhook_endpoints where id = ?', [id]);
}

/** The new secret signs from now on; the current one keeps signing until `previousUntil` (null: it stops now). */
export async function rotateSecretRow(tx: EntityManager, id: string, secret: string, previousUntil: Date | null, at: Date): Promise<void> {
  await tx.execute(
    `update webhook_endpoints set previous_secret = case when ?::timestamptz is null then null else secret end,
       previous_secret_until = ?::timestamptz, secret = ?, version = version + 1, updated_at = ? where id = ?`,
    [previousUntil, previousUntil, secret, at, id],
  );
}

/** Disables an enabled endpoint (410 Gone, or five days of failures); true when this call did. */
export async function disableEndpoint(tx: EntityManager, id: string, reason: DisabledReason, at: Date): Promise<EndpointRow | null> {
  const [row] = await tx.execute<EndpointRecord[]>(
    `update webhook_endpoints set enabled = false, disabled_reason = ?, lane_holder = null, lane_until = null, version = version + 1, updated_at = ?
     where id = ? and enabled returning ${ENDPOINT_COLUMNS}`,
    [reason, at, id],
  );
  return row ? toEndpoint(row) : null;
}

// ---- deliveries -----------------------------------------------------------------------------------------

export interface NewDelivery {
  id: string;
  messageId: string;
  eventId: string | null;
  eventType: string;
  payload: unknown;
}

/** Queues first attempts, in the order given (their `seq` keeps it). */
export async function insertDeliveries(tx: EntityManager, endpointId: string, rows: NewDelivery[], at: Date): Promise<void> {
  if (rows.length === 0) return;
  await tx.execute(
    `insert into webhook_deliveries (id, endpoint_id, message_id, event_id, event_type, payload, created_at)
     select d.id, ?, d.message_id, d.event_id, d.event_type, d.payload, ?
     from rows from (json_to_recordset(?::json) as (id uuid, message_id text, event_id uuid, event_type text, payload json))
          with ordinality as d(id, message_id, event_id, event_type, payload, n)
     order by n`,
    [
      endpointId,
      at,
      JSON.stringify(rows.map((r) => ({ id: r.id, message_id: r.messageId, event_id: r.eventId, event_type: r.eventType, payload: r.payload }))),
    ],
  );
}

const DELIVERY_COLUMNS = `id, seq, endpoint_id, message_id, event_id, event_type, status, attempts, next_attempt_at, last_attempt_at,
  last_response_status, last_response_body, last_error, duration_ms, created_at`;

type DeliveryRecord = {
  id: string;
  seq: string | number;
  endpoint_id: string;
  message_id: string;
  event_id: string | null;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | string | null;
  last_attempt_at: Date | string | null;
  last_response_status: number | null;
  last_response_body: string | null;
  last_error: string | null;
  duration_ms: number | null;
  created_at: Date | string;
};

function toDelivery(r: DeliveryRecord): DeliveryRow {
  return {
    id: r.id,
    seq: Number(r.seq),
    endpointId: r.endpoint_id,
    messageId: r.message_id,
    eventId: r.event_id,
    eventType: r.event_type,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: date(r.next_attempt_at),
    lastAttemptAt: date(r.last_attempt_at),
    lastResponseStatus: r.last_response_status,
    lastResponseBody: r.last_response_body,
    lastError: r.last_error,
    durationMs: r.duration_ms,
    createdAt: new Date(r.created_at),
  };
}

/** An endpoint's deliveries, newest first, after the key `(createdAt, seq)`. */
export async function listDeliveryRows(
  em: EntityManager,
  endpointId: string,
  status: DeliveryStatus | undefined,
  before: [string, number] | undefined,
  limit: number,
): Promise<DeliveryRow[]> {
  const rows = await em.execute<DeliveryRecord[]>(
    `select ${DELIVERY_COLUMNS} from webhook_deliveries
     where endpoint_id = ? and (?::text is null or status = ?)
       and (?::timestamptz is null or (created_at, seq) < (?::timestamptz, ?::bigint))
     order by created_at desc, seq desc limit ?`,
    [endpointId, status ?? null, status ?? null, before?.[0] ?? null, before?.[0] ?? null, before?.[1] ?? null, limit],
  );
  return rows.map(toDelivery);
}

export async function findDelivery(em: EntityManager, endpointId: string, id: string): Promise<DeliveryRow | null> {
  const [row] = await em.execute<DeliveryRecord[]>(`select ${DELIVERY_COLUMNS} from webhook_deliveries where endpoint_id = ? and id = ?`, [endpointId, id]);
  return row ? toDelivery(row) : null;
}

/** Makes a delivery due now again (a manual retry); a finished one is attempted once more. */
export async function retryDeliveryRow(tx: EntityManager, endpointId: string, id: string, now: Date): Promise<DeliveryRow | null> {
  const [row] = await tx.execute<DeliveryRecord[]>(
    `update webhook_deliveries set status = case when attempts = 0 then 'pending' else 'retrying' end, next_attempt_at = ?
     where endpoint_id = ? and id = ? returning ${DELIVERY_COLUMNS}`,
    [now, endpointId, id],
  );
  return row ? toDelivery(row) : null;
}

/** Queued test messages of an endpoint not yet sent: a bound on what one caller can pile up. */
export async function pendingTests(em: EntityManager, endpointId: string): Promise<number> {
  const [row] = await em.execute<{ n: number }[]>(
    `select count(*)::int as n from webhook_deliveries where endpoint_id = ? and event_type = 'webhook.test' and status in ('pending', 'retrying')`,
    [endpointId],
  );
  return row.n;
}

// ---- the dispatcher's side -----------------------------------------------------------------------------

/** Enabled endpoints whose first-attempt lane is free, expired or already `holder`'s; takes or renews that lane. */
export async function takeLanes(em: EntityManager, holder: string, leaseMs: number, limit: number): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `update webhook_endpoints set lane_holder = ?, lane_until = clock_timestamp() + (? * interval '1 millisecond')
     where id in (select id from webhook_endpoints where enabled and (lane_holder = ? or lane_holder is null or lane_until < clock_timestamp())
                  order by id limit ? for update skip locked)
     returning id`,
    [holder, leaseMs, holder, limit],
  );
  return rows.map((r) => r.id);
}

export async function releaseLanes(em: EntityManager, holder: string): Promise<void> {
  await em.execute('update webhook_endpoints set lane_holder = null, lane_until = null where lane_holder = ?', [holder]);
}

/** The endpoint's checkpoint and types, locked (no other instance fills it meanwhile); null when it is gone, disabled or being filled. */
export async function lockForFill(tx: EntityManager, id: string): Promise<{ checkpoint: FeedCursor; types: string[] | null } | null> {
  const [row] = await tx.execute<{ tid: string; pos: string; types: string[] | null }[]>(
    `select checkpoint_tid::text as tid, checkpoint_pos as pos, types from webhook_endpoints where id = ? and enabled for update skip locked`,
    [id],
  );
  return row ? { checkpoint: { transactionId: row.tid, position: Number(row.pos) }, types: row.types } : null;
}

export async function advanceEndpointCheckpoint(tx: EntityManager, id: string, to: FeedCursor): Promise<void> {
  await tx.execute('update webhook_endpoints set checkpoint_tid = ?::text::xid8, checkpoint_pos = ? where id = ?', [to.transactionId, to.position, id]);
}

export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  messageId: string;
  eventType: string;
  payload: unknown;
  /** this attempt's number (1 for the first) */
  attempt: number;
  url: string;
  failingSince: Date | null;
  secrets: EndpointSecrets;
}

type ClaimRecord = {
  id: string;
  endpoint_id: string;
  message_id: string;
  event_type: string;
  payload: unknown;
  attempts: number;
  url: string;
  failing_since: Date | string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | string | null;
};
const toClaim = (r: ClaimRecord): ClaimedDelivery => ({
  id: r.id,
  endpointId: r.endpoint_id,
  messageId: r.message_id,
  eventType: r.event_type,
  payload: r.payload,
  attempt: r.attempts,
  url: r.url,
  failingSince: date(r.failing_since),
  secrets: { secret: r.secret, previousSecret: r.previous_secret, previousSecretUntil: date(r.previous_secret_until) },
});
const CLAIMED =
  'd.id, d.endpoint_id, d.message_id, d.event_type, d.payload, d.attempts, e.url, e.failing_since, e.secret, e.previous_secret, e.previous_secret_until';

/**
 * Claims the endpoint's next first attempt in feed order: counts the attempt and moves its next-attempt
 * time past the attempt's longest run, in one update, so no other claim can take it (a crash leaves it
 * due again then, as a retry).
 */
export async function claimFirstAttempt(em: EntityManager, endpointId: string, now: Date, runUntil: Date): Promise<ClaimedDelivery | null> {
  const [row] = await em.execute<ClaimRecord[]>(
    `with next as (
       select d.id from webhook_deliveries d where d.endpoint_id = ? and d.attempts = 0 and d.status = 'pending'
       order by d.seq limit 1 for update skip locked)
     update webhook_deliveries d set attempts = 1, last_attempt_at = ?, next_attempt_at = ?
     from next, webhook_endpoints e where d.id = next.id and e.id = d.endpoint_id and e.enabled
     returning ${CLAIMED}`,
    [endpointId, now, runUntil],
  );
  return row ? toClaim(row) : null;
}

/** Claims up to `limit` retries that are due, skipping those another instance holds and the endpoints named in `busy`. */
export async function claimDueRetries(em: EntityManager, now: Date, runUntil: Date, limit: number, busy: string[]): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  const rows = await em.execute<ClaimRecord[]>(
    `with due as (
       select d.id from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id and e.enabled
       where d.attempts > 0 and d.status in ('pending', 'retrying') and d.next_attempt_at <= ? and not (d.endpoint_id = any(?::uuid[]))
       order by d.next_attempt_at limit ? for update of d skip locked)
     update webhook_deliveries d set attempts = d.attempts + 1, status = 'pending', last_attempt_at = ?, next_attempt_at = ?
     from due, webhook_endpoints e where d.id = due.id and e.id = d.endpoint_id
     returning ${CLAIMED}`,
    [now, `{${busy.join(',')}}`, limit, now, runUntil],
  );
  return rows.map(toClaim);
}

export interface AttemptOutcome {
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
}

/** Records an attempt's outcome, only if no later attempt of the delivery was claimed meanwhile. */
export async function recordAttempt(tx: EntityManager, id: string, attempt: number, o: AttemptOutcome): Promise<boolean> {
  const rows = await tx.execute(
    `update webhook_deliveries set status = ?, next_attempt_at = ?, last_response_status = ?, last_response_body = ?, last_error = ?, duration_ms = ?
     where id = ? and attempts = ? returning 1`,
    [o.status, o.nextAttemptAt, o.responseStatus, o.responseBody, o.error, o.durationMs, id, attempt],
  );
  return rows.length === 1;
}

/** A success ends the endpoint's run of failures; a failure starts one (when none is running). */
export async function markEndpointHealth(tx: EntityManager, id: string, succeeded: boolean, at: Date): Promise<void> {
  if (succeeded) await tx.execute('update webhook_endpoints set failing_since = null where id = ? and failing_since is not null', [id]);
  else await tx.execute('update webhook_endpoints set failing_since = ? where id = ? and failing_since is null', [at, id]);
}

/** Per endpoint: deliveries waiting (not succeeded or failed) and the age of the oldest, in seconds (for /metrics). */
export async function backlog(em: EntityManager, now: Date): Promise<{ endpointId: string; waiting: number; oldestSeconds: number }[]> {
  const rows = await em.execute<{ endpoint_id: string; waiting: number; oldest: number | null }[]>(
    `select e.id as endpoint_id, count(d.id)::int as waiting, extract(epoch from (?::timestamptz - min(d.created_at)))::float8 as oldest
     from webhook_endpoints e left join webhook_deliveries d on d.endpoint_id = e.id and d.status in ('pending', 'retrying')
     group by e.id`,
    [now],
  );
  return rows.map((r) => ({ endpointId: r.endpoint_id, waiting: r.waiting, oldestSeconds: Math.max(0, r.oldest ?? 0) }));
}
