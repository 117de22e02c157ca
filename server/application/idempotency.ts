// Idempotent retries (SPEC §12), for every face: a request that names an idempotency key runs once per
// caller and key; a retry gets the first answer back, a different request under the same key is refused.
// Faces call `idempotentCall` (at the end): REST's `handle`, GraphQL's `idempotentMutation`, MCP's tools/call.
import { createHmac } from 'node:crypto';
import { ok, refuse, validationFailed, type ErrorCode, type Result } from '../domain/errors.js';
import { REFUSAL_STATUS } from '../http/refusal-status.js';
import { findIdempotencyKey, forgetIdempotencyKey, keepIdempotentAnswer, lockIdempotencyKey, type IdempotencyScope } from '../persistence/idempotency.js';
import { withinTransaction } from '../persistence/transaction.js';
import type { Ctx, Deps } from './context.js';

/** How long a kept answer is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** What a request is, for telling a retry from a different request under the same key. */
interface IdempotentRequest {
  /** the caller's key, as parsed by `parseIdempotencyKey` */
  key: string;
  /** REST: the HTTP method; GraphQL: `GRAPHQL`; MCP: `MCP` */
  method: string;
  /** REST: the path; GraphQL: the mutation field; MCP: the tool name */
  path: string;
  /** the parsed body or arguments, without the idempotency key itself */
  body: unknown;
}

/** A face's answer: an HTTP status (200 for a GraphQL or MCP success, the refusal's status otherwise) and its body. */
export interface Answer {
  status: number;
  body: unknown;
}

/** 1–255 printable ASCII characters, as SPEC §12 asks; `field` names it in the refusal (a header or an argument). */
function parseIdempotencyKey(raw: unknown, field: string): Result<string | undefined> {
  if (raw === undefined || raw === null) return ok(undefined);
  if (typeof raw === 'string' && /^[\x20-\x7e]{1,255}$/.test(raw)) return ok(raw);
  return validationFailed(
    [{ path: field, message: 'must be 1 to 255 printable ASCII characters', code: 'invalid_format', params: { min: 1, max: 255 } }],
    'The idempotency key must be 1 to 255 printable ASCII characters.',
  );
}

/** Object keys sorted, so `{a, b}` and `{b, a}` are the same request. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Keyed with the server secret: a body that held a password is not kept in a form anyone could test guesses against. */
export function requestHash(deps: Pick<Deps, 'sessionSecret'>, req: IdempotentRequest): string {
  return createHmac('sha256', deps.sessionSecret)
    .update(JSON.stringify([req.method, req.path, canonical(req.body ?? null)]))
    .digest('base64url');
}

/** Members that hold a secret shown once: an API key, a second factor's secret and its recovery codes. */
const SECRET_MEMBERS = ['key', 'secret', 'otpauthUri', 'qrCodeSvg', 'recoveryCodes'];

/** A secret is never kept: a replayed key creation answers the key's metadata without `key` (and so on). */
function withoutSecret(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !SECRET_MEMBERS.some((m) => m in body)) return body;
  return Object.fromEntries(Object.entries(body as Record<string, unknown>).filter(([k]) => !SECRET_MEMBERS.includes(k)));
}

function scopeOf(ctx: Ctx): IdempotencyScope | null {
  if (!ctx.caller.userId) return null;
  return { userId: ctx.caller.userId, apiKeyId: ctx.caller.apiKey?.id ?? null };
}

/** The answer, and whether it is a replay of the first attempt's. */
interface IdempotentOutcome {
  answer: Answer;
  replayed: boolean;
}

/**
 * How long a claim committed by an earlier version of the service (which claimed in a transaction of
 * its own, before the work) counts as a request still running. This version never commits a claim
 * without its answer, so such rows exist only across an upgrade, or after that version lost a commit's
 * answer: they must not refuse retries for 24 hours.
 */
export const IN_PROGRESS_LEASE_MS = 2 * 60 * 1000;

const inProgress = () => refuse('idempotency_in_progress', 'A request with this idempotency key is still running; retry once it has answered.');

/** Why a first attempt's transaction is rolled back though `run` answered: another writer took the key. */
class KeyTaken extends Error {}

/**
 * Runs `run` once per caller and key, in ONE transaction with the kept answer: the key's row is written
 * by the commit that writes the work, so a committed write is always found by its retry (a replay), and
 * a write that did not commit leaves no row (the retry runs it). Whatever `run` does through `reader` and
 * `transact` joins that transaction. A concurrent duplicate (any instance) finds the key locked and is
 * answered 409 `idempotency_in_progress`; the lock ends with the transaction, so it never outlives its
 * request. A first attempt that throws or answers 5xx rolls back: nothing of it is kept. A COMMIT whose
 * answer is lost throws as any database failure does; the retry then finds out which way it went.
 */
async function idempotently(deps: Deps, ctx: Ctx, req: IdempotentRequest, run: () => Promise<Answer>): Promise<Result<IdempotentOutcome>> {
  const scope = scopeOf(ctx);
  if (!scope) return ok({ answer: await run(), replayed: false });
  const hash = requestHash(deps, req);
  try {
    return await withinTransaction<Result<IdempotentOutcome>>(deps.orm, async (tx) => {
      if (!(await lockIdempotencyKey(tx, scope, req.key))) return { commit: false, value: inProgress() };
      const now = deps.clock();
      const kept = await findIdempotencyKey(tx, scope, req.key);
      const stale =
        kept &&
        (new Date(kept.expires_at) <= now || (kept.state === 'in_progress' && new Date(kept.created_at).getTime() + IN_PROGRESS_LEASE_MS <= now.getTime()));
      if (kept && !stale) {
        if (kept.method !== req.method || kept.path !== req.path || kept.request_hash !== hash) {
          return {
            commit: false,
            value: refuse('idempotency_key_reused', 'This idempotency key was already used for a different request; use a new key for a new request.'),
          };
        }
        if (kept.state === 'in_progress') return { commit: false, value: inProgress() };
        return { commit: false, value: ok({ answer: { status: kept.status ?? 200, body: kept.response }, replayed: true }) };
      }
      if (kept) await forgetIdempotencyKey(tx, scope, req.key);

      const answer = await run();
      // A failure on our side is not an answer to keep: roll back, so the retry runs it again.
      if (answer.status >= 500) return { commit: false, value: ok({ answer, replayed: false }) };
      const stored = await keepIdempotentAnswer(tx, {
        scope,
        key: req.key,
        method: req.method,
        path: req.path,
        requestHash: hash,
        status: answer.status,
        response: withoutSecret(answer.body),
        now,
        expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      });
      if (!stored) throw new KeyTaken();
      return { commit: true, value: ok({ answer, replayed: false }) };
    });
  } catch (err) {
    if (err instanceof KeyTaken) return inProgress();
    throw err;
  }
}

// ---- the adapter every face calls (REST `handle`, GraphQL `idempotentMutation`, MCP tools/call) ----------

/** A face's call as idempotency sees it: the key as given (header or argument) and what the request is. */
export interface FaceCall {
  /** the caller's key as given: absent (undefined or null) runs the call without idempotency */
  rawKey: unknown;
  /** where the key was given, named in the refusal of a malformed one: `Idempotency-Key` or `idempotencyKey` */
  keyField: string;
  /** REST: the HTTP method; GraphQL: `GRAPHQL`; MCP: `MCP` */
  method: string;
  /** REST: the path; GraphQL: the mutation field; MCP: the tool name */
  path: string;
  /** the parsed body or arguments, without the key itself */
  body: unknown;
}

/** How GraphQL and MCP keep a refusal (REST keeps its problem document, which says the same and more). */
interface KeptRefusal {
  code: ErrorCode;
  detail: string;
  extensions?: Record<string, unknown>;
}

/** A use case's result as the answer kept for a retry: 200 and the value, or the refusal's status and `KeptRefusal`. */
function keptAnswer(result: Result<unknown>): Answer {
  if (result.ok) return { status: 200, body: result.value };
  const kept: KeptRefusal = { code: result.code, detail: result.detail, ...(result.extensions ? { extensions: result.extensions } : {}) };
  return { status: REFUSAL_STATUS[result.code], body: kept };
}

/** A `keptAnswer` read back: the first attempt's value, or its refusal (for GraphQL and MCP replays). */
export function replayedResult(answer: Answer): Result<unknown> {
  if (answer.status < 400) return ok(answer.body);
  const kept = answer.body as KeptRefusal;
  return refuse(kept.code, kept.detail, kept.extensions);
}

/** The call ran now (its own result, with whatever it carries), or a retry got the first attempt's kept answer. */
type FaceOutcome<T> = { replayed: false; result: Result<T> } | { replayed: true; answer: Answer };

/**
 * THE idempotency adapter of the three faces (SPEC §12): parses the key (a malformed one is 400
 * `validation_failed` naming `keyField`), runs `run` once per caller and key through `idempotently`, and
 * says whether this is the first attempt (its result as the use case gave it, so a face answers it as any
 * request: a refusal keeps its headers) or a replay (the kept answer). `answerOf` is how the face keeps an
 * answer: `keptAnswer` unless it keeps something else (REST: its problem document and success status).
 * Without a call (a face that takes no key here) or a key, `run` just runs.
 */
export async function idempotentCall<T>(
  deps: Deps,
  ctx: Ctx,
  call: FaceCall | undefined,
  run: () => Promise<Result<T>>,
  answerOf: (result: Result<T>) => Answer = keptAnswer,
): Promise<Result<FaceOutcome<T>>> {
  const key = parseIdempotencyKey(call?.rawKey, call?.keyField ?? 'idempotencyKey');
  if (!key.ok) return key;
  // without a key the call just runs (what `idempotently` would do, without its layers of promises)
  if (!call || key.value === undefined) return ok({ replayed: false, result: await run() });
  const request = { key: key.value, method: call.method, path: call.path, body: call.body };
  let first: Result<T> | undefined;
  const outcome = await idempotently(deps, ctx, request, async () => {
    first = await run();
    return answerOf(first);
  });
  if (!outcome.ok) return outcome;
  return ok(first ? { replayed: false, result: first } : { replayed: true, answer: outcome.value.answer });
}
