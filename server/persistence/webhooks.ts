// Webhook endpoints and deliveries (SPEC §14): the SQL of the use cases and of the dispatcher. An endpoint
// row holds its secrets and its own feed checkpoint; a delivery row its attempts and next-attempt time.
import type { EntityManager } from '@mikro-orm/postgresql';
import { toStoredEvent, type EventRow, type FeedCursor, type StoredEvent } from './event-store.js';

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
  /** the event's stream (what orders first attempts); null: the delivery is its own */
  stream: string | null;
  /** the body of a message that is no feed event (a test message); null for an event, whose body is built from its row at each attempt */
  payload: unknown;
}

const deliveryRecord = (r: NewDelivery) => ({
  id: r.id,
  message_id: r.messageId,
  event_id: r.eventId,
  event_type: r.eventType,
  stream: r.stream,
  payload: r.payload ?? null,
});

/** Queues first attempts, in the order given (their `seq` keeps it). */
export async function insertDeliveries(tx: EntityManager, endpointId: string, rows: NewDelivery[], at: Date): Promise<void> {
  if (rows.length === 0) return;
  await tx.execute(
    `insert into webhook_deliveries (id, endpoint_id, message_id, event_id, event_type, stream, payload, created_at)
     select d.id, ?, d.message_id, d.event_id, d.event_type, d.stream, d.payload, ?
     from rows from (json_to_recordset(?::json) as (id uuid, message_id text, event_id uuid, event_type text, stream text, payload json))
          with ordinality as d(id, message_id, event_id, event_type, stream, payload, n)
     order by n`,
    [endpointId, at, JSON.stringify(rows.map(deliveryRecord))],
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

/** How many of an endpoint's deliveries are in `status` (all without it), counting at most `bound + 1` rows. */
export async function countDeliveryRows(em: EntityManager, endpointId: string, status: DeliveryStatus | undefined, bound: number): Promise<number> {
  const [row] = await em.execute<{ n: number }[]>(
    'select count(*)::int as n from (select 1 from webhook_deliveries where endpoint_id = ? and (?::text is null or status = ?) limit ?) s',
    [endpointId, status ?? null, status ?? null, bound + 1],
  );
  return row.n;
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

/** An endpoint whose first attempts this instance sends: where its deliveries stand in the feed, and what it takes. */
export interface Lane {
  id: string;
  checkpoint: FeedCursor;
  types: string[] | null;
}

/**
 * The enabled endpoints whose first-attempt lane is this holder's, with their checkpoints: takes the lanes
 * that are free or expired, renews its own once a third of the lease is spent, and reads the others it
 * holds. One statement; a lane is written only when taken or renewed, not on every round.
 */
export async function holdLanes(em: EntityManager, holder: string, leaseMs: number, limit: number): Promise<Lane[]> {
  const rows = await em.execute<{ id: string; tid: string; pos: string | number; types: string[] | null }[]>(
    `with took as (
       update webhook_endpoints set lane_holder = ?, lane_until = statement_timestamp() + (? * interval '1 millisecond')
       where id in (select id from webhook_endpoints
                    where enabled and (lane_holder is null or lane_until < statement_timestamp()
                                       or (lane_holder = ? and lane_until < statement_timestamp() + (? * interval '1 millisecond')))
                    order by id limit ? for update skip locked)
       returning id, checkpoint_tid::text as tid, checkpoint_pos as pos, types)
     select id, tid, pos, types from took
     union all
     select id, checkpoint_tid::text, checkpoint_pos, types from webhook_endpoints
     where enabled and lane_holder = ? and lane_until >= statement_timestamp() + (? * interval '1 millisecond')`,
    [holder, leaseMs, holder, (leaseMs * 2) / 3, limit, holder, (leaseMs * 2) / 3],
  );
  return rows.map((r) => ({ id: r.id, checkpoint: { transactionId: r.tid, position: Number(r.pos) }, types: r.types }));
}

export async function releaseLanes(em: EntityManager, holder: string): Promise<void> {
  await em.execute('update webhook_endpoints set lane_holder = null, lane_until = null where lane_holder = ?', [holder]);
}

/** Deliveries to queue for one endpoint, and its checkpoint before and after them. */
export interface LaneFill {
  endpointId: string;
  from: FeedCursor;
  to: FeedCursor;
  deliveries: NewDelivery[];
}

/**
 * Queues the first attempts of several endpoints and moves their checkpoints, in one statement: an
 * endpoint's checkpoint moves from `from` to `to` only if it still is at `from` (another instance that
 * filled it meanwhile wins, and this one's rows for it are not written) and it is enabled; its rows are
 * written in the order given (`seq`), with the move or not at all. Answers the endpoints moved.
 */
export async function fillLanes(em: EntityManager, fills: LaneFill[], at: Date): Promise<string[]> {
  if (fills.length === 0) return [];
  const rows = await em.execute<{ id: string }[]>(
    `with moved as (
       update webhook_endpoints e set checkpoint_tid = w.to_tid::xid8, checkpoint_pos = w.to_pos
       from json_to_recordset(?::json) as w(endpoint_id uuid, from_tid text, from_pos bigint, to_tid text, to_pos bigint)
       where e.id = w.endpoint_id and e.enabled and e.checkpoint_tid = w.from_tid::xid8 and e.checkpoint_pos = w.from_pos
       returning e.id),
     queued as (
       insert into webhook_deliveries (id, endpoint_id, message_id, event_id, event_type, stream, payload, created_at)
       select d.id, d.endpoint_id, d.message_id, d.event_id, d.event_type, d.stream, d.payload, ?
       from rows from (json_to_recordset(?::json) as (id uuid, endpoint_id uuid, message_id text, event_id uuid, event_type text, stream text, payload json))
            with ordinality as d(id, endpoint_id, message_id, event_id, event_type, stream, payload, n)
       where d.endpoint_id in (select id from moved)
       order by n)
     select id from moved`,
    [
      JSON.stringify(
        fills.map((f) => ({
          endpoint_id: f.endpointId,
          from_tid: f.from.transactionId,
          from_pos: f.from.position,
          to_tid: f.to.transactionId,
          to_pos: f.to.position,
        })),
      ),
      at,
      JSON.stringify(fills.flatMap((f) => f.deliveries.map((r) => ({ ...deliveryRecord(r), endpoint_id: f.endpointId })))),
    ],
  );
  return rows.map((r) => r.id);
}

export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  messageId: string;
  eventType: string;
  /** the body as stored (a test message, or a row written before bodies were built from the event), else null */
  payload: string | null;
  /** the feed's event, when the body is built from it; null when it is stored (or the event is gone) */
  event: StoredEvent | null;
  /** what orders it: the event's stream, or the delivery itself when it has none */
  stream: string;
  /** this attempt's number (1 for the first) */
  attempt: number;
  /** a first attempt's run window, which its outcome must still hold; null for a retry (its attempt count is the claim) */
  claimedUntil: Date | null;
  url: string;
  failingSince: Date | null;
  secrets: EndpointSecrets;
}

type ClaimRecord = {
  id: string;
  endpoint_id: string;
  message_id: string;
  event_type: string;
  payload: string | null;
  event: EventRow | null;
  stream: string;
  attempts: number;
  claimed_until: Date | string | null;
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
  event: r.event ? toStoredEvent(r.event) : null,
  stream: r.stream,
  attempt: r.claimed_until === null ? r.attempts : 1,
  claimedUntil: date(r.claimed_until),
  url: r.url,
  failingSince: date(r.failing_since),
  secrets: { secret: r.secret, previousSecret: r.previous_secret, previousSecretUntil: date(r.previous_secret_until) },
});
const STREAM = `coalesce(d.stream, d.payload #>> '{data,streamId}', d.id::text)`;
const CLAIMED = `d.id, d.endpoint_id, d.message_id, d.event_type, d.payload::text as payload,
  (select to_json(ev) from domain_events ev where d.payload is null and ev.id = d.event_id) as event,
  ${STREAM} as stream, d.attempts, d.claimed_until, e.url, e.failing_since, e.secret, e.previous_secret, e.previous_secret_until`;

/** What a lane asks for: at most `room` first attempts, none of a stream in `busy` (one of its attempts is in flight). */
export interface FirstAttemptWant {
  endpointId: string;
  room: number;
  busy: string[];
}

/**
 * Claims the next first attempts of several endpoints in one statement, each endpoint's in feed order
 * (`seq`): at most `room` each, and stopping before the first one whose stream already has an attempt in
 * flight or earlier in the batch, so the batch can be sent at once without two events of one stream
 * racing each other. A claim sets `claimed_until` past the attempt's longest run, so no other claim takes
 * it meanwhile, and a crash leaves it to be claimed again then, still in feed order. It writes no indexed
 * column (a HOT update: no index entry); the attempt is counted when its outcome is written. Answers the
 * claimed rows in each endpoint's order, and the endpoints that have first attempts waiting beyond them.
 */
export async function claimFirstAttempts(
  em: EntityManager,
  wants: FirstAttemptWant[],
  now: Date,
  runUntil: Date,
): Promise<{ claimed: ClaimedDelivery[]; waiting: Set<string> }> {
  if (wants.length === 0) return { claimed: [], waiting: new Set() };
  const [row] = await em.execute<{ claimed: ClaimRecord[]; candidates: Record<string, number> | null }[]>(
    `with want as (select * from json_to_recordset(?::json) as w(endpoint_id uuid, room int, busy text[])),
     candidate as (
       select c.* from want w cross join lateral (
         select d.id, d.seq, d.endpoint_id, ${STREAM} as stream
         from webhook_deliveries d
         where d.endpoint_id = w.endpoint_id and d.attempts = 0 and d.status = 'pending' and (d.claimed_until is null or d.claimed_until < ?)
         order by d.seq limit w.room + 1 for update skip locked) c),
     ranked as (
       select c.*, row_number() over (partition by c.endpoint_id, c.stream order by c.seq) as in_stream,
              row_number() over (partition by c.endpoint_id order by c.seq) as k
       from candidate c),
     cut as (
       select r.endpoint_id, min(r.seq) as seq from ranked r join want w on w.endpoint_id = r.endpoint_id
       where r.in_stream > 1 or r.stream = any(w.busy) or r.k > w.room group by r.endpoint_id),
     chosen as (select r.id from ranked r left join cut on cut.endpoint_id = r.endpoint_id where cut.seq is null or r.seq < cut.seq),
     claimed as (
       update webhook_deliveries d set last_attempt_at = ?, claimed_until = ?
       from webhook_endpoints e where d.id in (select id from chosen) and e.id = d.endpoint_id and e.enabled
       returning d.seq, ${CLAIMED})
     select (select coalesce(json_agg(c order by c.endpoint_id, c.seq), '[]'::json) from claimed c) as claimed,
            (select json_object_agg(endpoint_id, n) from (select endpoint_id, count(*) as n from candidate group by endpoint_id) x) as candidates`,
    [JSON.stringify(wants.map((w) => ({ endpoint_id: w.endpointId, room: w.room, busy: w.busy }))), now, now, runUntil],
  );
  const claimed = row.claimed.map(toClaim);
  const taken = new Map<string, number>();
  for (const c of claimed) taken.set(c.endpointId, (taken.get(c.endpointId) ?? 0) + 1);
  const waiting = new Set(
    Object.entries(row.candidates ?? {})
      .filter(([e, n]) => n > (taken.get(e) ?? 0))
      .map(([e]) => e),
  );
  return { claimed, waiting };
}

/**
 * Claims up to `limit` retries that are due, skipping those another instance holds, at most `perEndpoint`
 * of one endpoint less what `inFlight` says this instance already runs there.
 */
export async function claimDueRetries(
  em: EntityManager,
  now: Date,
  runUntil: Date,
  limit: number,
  perEndpoint: number,
  inFlight: Map<string, number>,
): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  const rows = await em.execute<ClaimRecord[]>(
    `with due as (
       select d.id, d.endpoint_id, d.next_attempt_at from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id and e.enabled
       where d.attempts > 0 and d.status in ('pending', 'retrying') and d.next_attempt_at <= ?
       order by d.next_attempt_at limit ? for update of d skip locked),
     busy as (select * from json_to_recordset(?::json) as b(endpoint_id uuid, n int)),
     chosen as (
       select id from (
         select due.id, due.next_attempt_at, coalesce(b.n, 0) as n,
                row_number() over (partition by due.endpoint_id order by due.next_attempt_at) as k
         from due left join busy b on b.endpoint_id = due.endpoint_id) x
       where k + n <= ? order by next_attempt_at limit ?)
     update webhook_deliveries d set attempts = d.attempts + 1, status = 'pending', last_attempt_at = ?, next_attempt_at = ?, claimed_until = null
     from webhook_endpoints e where d.id in (select id from chosen) and e.id = d.endpoint_id
     returning ${CLAIMED}`,
    [now, limit * 4, JSON.stringify([...inFlight].map(([endpoint_id, n]) => ({ endpoint_id, n }))), perEndpoint, limit, now, runUntil],
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

/**
 * Whether an outcome is still the one to write: a first attempt's claim still holds (its window was not
 * claimed again), or no later attempt of a retry was claimed meanwhile.
 */
const STILL_CLAIMED = `case when o.claimed_until is null then d.attempts = o.attempt else d.attempts = 0 and d.claimed_until = o.claimed_until end`;

/** Records an attempt's outcome (and counts a first attempt), only if it still holds its claim. */
export async function recordAttempt(
  tx: EntityManager,
  id: string,
  claim: Pick<ClaimedDelivery, 'attempt' | 'claimedUntil'>,
  o: AttemptOutcome,
): Promise<boolean> {
  const rows = await tx.execute(
    `update webhook_deliveries d set attempts = o.attempt, status = ?, next_attempt_at = ?, last_response_status = ?, last_response_body = ?,
       last_error = ?, duration_ms = ?, claimed_until = null
     from (select ?::int as attempt, ?::timestamptz as claimed_until) o
     where d.id = ? and ${STILL_CLAIMED} returning 1`,
    [o.status, o.nextAttemptAt, o.responseStatus, o.responseBody, o.error, o.durationMs, claim.attempt, claim.claimedUntil, id],
  );
  return rows.length === 1;
}

export interface RecordedOutcome extends AttemptOutcome {
  id: string;
  attempt: number;
  claimedUntil: Date | null;
  endpointId: string;
  succeeded: boolean;
  /** when the answer came */
  at: Date;
}

/**
 * Records the outcomes of several attempts in one statement (each only if no later attempt of its delivery
 * was claimed meanwhile), and each endpoint's run of failures: a success ends it (a failure after the
 * batch's last success starts a new one), failures alone start one when none is running. Answers the
 * deliveries recorded.
 */
export async function recordAttempts(em: EntityManager, outcomes: RecordedOutcome[]): Promise<Set<string>> {
  if (outcomes.length === 0) return new Set();
  const rows = await em.execute<{ id: string }[]>(
    `with o as (
       select * from json_to_recordset(?::json) as o(id uuid, attempt int, claimed_until timestamptz, endpoint_id uuid, ok boolean, at timestamptz,
         status text, next_attempt_at timestamptz, response_status int, response_body text, error text, duration_ms int)),
     recorded as (
       update webhook_deliveries d set attempts = o.attempt, status = o.status, next_attempt_at = o.next_attempt_at,
         last_response_status = o.response_status, last_response_body = o.response_body, last_error = o.error, duration_ms = o.duration_ms,
         claimed_until = null
       from o where d.id = o.id and ${STILL_CLAIMED}
       returning d.id),
     health as (
       select h.endpoint_id, h.ok_at,
              (select min(o.at) from o join recorded r on r.id = o.id
               where o.endpoint_id = h.endpoint_id and not o.ok and (h.ok_at is null or o.at > h.ok_at)) as failed_at
       from (select o.endpoint_id, max(o.at) filter (where o.ok) as ok_at from o join recorded r on r.id = o.id group by o.endpoint_id) h),
     marked as (
       update webhook_endpoints e set failing_since = case when h.ok_at is null then coalesce(e.failing_since, h.failed_at) else h.failed_at end
       from health h
       where e.id = h.endpoint_id
         and e.failing_since is distinct from (case when h.ok_at is null then coalesce(e.failing_since, h.failed_at) else h.failed_at end))
     select id from recorded`,
    [
      JSON.stringify(
        outcomes.map((o) => ({
          id: o.id,
          attempt: o.attempt,
          claimed_until: o.claimedUntil?.toISOString() ?? null,
          endpoint_id: o.endpointId,
          ok: o.succeeded,
          at: o.at.toISOString(),
          status: o.status,
          next_attempt_at: o.nextAttemptAt?.toISOString() ?? null,
          response_status: o.responseStatus,
          response_body: o.responseBody,
          error: o.error,
          duration_ms: o.durationMs,
        })),
      ),
    ],
  );
  return new Set(rows.map((r) => r.id));
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

/**
 * Deletes up to `limit` succeeded deliveries created before `before`, each endpoint's read back from there
 * by the log's index (so no index of its own to keep up on the hot path). Answers how many it deleted.
 */
export async function purgeSucceeded(em: EntityManager, before: Date, limit: number): Promise<number> {
  const rows = await em.execute<{ n: number }[]>(
    `with gone as (
       delete from webhook_deliveries where id in (
         select x.id from webhook_endpoints e cross join lateral (
           select d.id from webhook_deliveries d where d.endpoint_id = e.id and d.created_at < ? and d.status = 'succeeded'
           order by d.created_at desc, d.seq desc limit ?) x
         limit ?)
       returning 1)
     select count(*)::int as n from gone`,
    [before, limit, limit],
  );
  return rows[0].n;
}
