// Idempotent retries (SPEC §12), for every face: a request that names an idempotency key runs once per
// caller and key; a retry gets the first answer back, a different request under the same key is refused.
import { createHmac } from 'node:crypto';
import { ok, refuse, validationFailed, type Result } from '../domain/errors.js';
import {
  claimIdempotencyKey, findIdempotencyKey, keepIdempotentAnswer, releaseIdempotencyKey, type IdempotencyScope,
} from '../persistence/idempotency.js';
import { reader, transact } from '../persistence/transaction.js';
import type { Ctx, Deps } from './context.js';

/** How long a kept answer is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** What a request is, for telling a retry from a different request under the same key. */
export interface IdempotentRequest {
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
export function parseIdempotencyKey(raw: unknown, field: string): Result<string | undefined> {
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
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

/** Keyed with the server secret: a body that held a password is not kept in a form anyone could test guesses against. */
function requestHash(deps: Pick<Deps, 'sessionSecret'>, req: IdempotentRequest): string {
  return createHmac('sha256', deps.sessionSecret)
    .update(JSON.stringify([req.method, req.path, canonical(req.body ?? null)]))
    .digest('base64url');
}

/** A secret is never kept: a replayed key creation answers the key's metadata without `key`. */
function withoutSecret(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('key' in body)) return body;
  const { key: _secret, ...rest } = body as Record<string, unknown>;
  return rest;
}

function scopeOf(ctx: Ctx): IdempotencyScope | null {
  if (!ctx.caller.userId) return null;
  return { userId: ctx.caller.userId, apiKeyId: ctx.caller.apiKey?.id ?? null };
}

/** The answer, and whether it is a replay of the first attempt's. */
export interface IdempotentOutcome {
  answer: Answer;
  replayed: boolean;
}

/**
 * Runs `run` once per caller and key. The claim is its own short transaction, committed before `run`
 * starts, so a concurrent duplicate (on any instance) sees it and is answered 409 `idempotency_in_progress`.
 * A first attempt that throws or answers 5xx gives the key back, so a retry runs it again; any other answer
 * is kept for 24 hours. A process that dies mid-request leaves its claim until it expires: whether its work
 * committed is unknown, so the safe answer stays 409 rather than running it twice.
 */
export async function idempotently(
  deps: Deps,
  ctx: Ctx,
  req: IdempotentRequest | undefined,
  run: () => Promise<Answer>,
): Promise<Result<IdempotentOutcome>> {
  const scope = scopeOf(ctx);
  if (!req || !scope) return ok({ answer: await run(), replayed: false });
  const hash = requestHash(deps, req);
  // A few rounds: a row seen as taken may be released (a failed first attempt) before it can be read.
  for (let round = 0; round < 3; round++) {
    const now = deps.clock();
    const claimed = await transact(deps.orm, async (tx) =>
      ok(await claimIdempotencyKey(tx, {
        scope, key: req.key, method: req.method, path: req.path, requestHash: hash, now, expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      })),
    );
    if (claimed.ok && claimed.value) return ok({ answer: await firstAttempt(deps, scope, req.key, run), replayed: false });

    const kept = await findIdempotencyKey(reader(deps.orm), scope, req.key, now);
    if (!kept) continue;
    if (kept.method !== req.method || kept.path !== req.path || kept.request_hash !== hash) {
      return refuse('idempotency_key_reused', 'This idempotency key was already used for a different request; use a new key for a new request.');
    }
    if (kept.state === 'in_progress') {
      return refuse('idempotency_in_progress', 'A request with this idempotency key is still running; retry once it has answered.');
    }
    return ok({ answer: { status: kept.status ?? 200, body: kept.response }, replayed: true });
  }
  return refuse('idempotency_in_progress', 'A request with this idempotency key is still running; retry once it has answered.');
}

async function firstAttempt(deps: Deps, scope: IdempotencyScope, key: string, run: () => Promise<Answer>): Promise<Answer> {
  let answer: Answer;
  try {
    answer = await run();
  } catch (err) {
    await releaseIdempotencyKey(reader(deps.orm), scope, key).catch((e: unknown) => deps.logger.warn({ err: e }, 'idempotency: releasing a key failed'));
    throw err;
  }
  // The work is done (or refused) whatever happens here: a failure to keep the answer leaves the claim,
  // so retries are answered 409 until it expires, never run twice.
  const keep = answer.status >= 500
    ? releaseIdempotencyKey(reader(deps.orm), scope, key)
    : keepIdempotentAnswer(reader(deps.orm), scope, key, answer.status, withoutSecret(answer.body));
  await keep.catch((e: unknown) => deps.logger.warn({ err: e }, 'idempotency: keeping an answer failed'));
  return answer;
}
