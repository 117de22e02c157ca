// Idempotent GraphQL mutations (SPEC §12): the optional `idempotencyKey` argument, and the wrapper that
// runs a mutation once per caller and key, answering a retry with the first answer (or the first error).
import type { ArgBuilder } from '@pothos/core';
import type { builder } from './builder.js';
import { idempotentCall, replayedResult } from '../server/application/idempotency.js';
import type { Result } from '../server/domain/errors.js';
import { gqlCtx, type GraphQLContext } from './context.js';
import { unwrap } from './errors.js';

const IDEMPOTENCY_KEY_DESCRIPTION =
  'Makes the mutation safe to retry: the first answer is kept for 24 hours, scoped to you, and a retry with the same key, ' +
  'mutation and arguments gets it back and changes nothing. The same key with other arguments is IDEMPOTENCY_KEY_REUSED; ' +
  'a retry while the first is still running is IDEMPOTENCY_IN_PROGRESS. 1-255 printable ASCII characters.';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The `idempotencyKey` argument, for `args: { ..., idempotencyKey: idempotencyKeyArg(t.arg) }`. */
export function idempotencyKeyArg(arg: ArgBuilder<Types>) {
  return arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION });
}

/**
 * Runs a mutation's use case, once per caller and `idempotencyKey` when one is given. The request is the
 * field name and its arguments without the key. A replayed value is the kept JSON (dates as ISO strings,
 * a created key without its secret), which the types serialise as they would the first.
 */
export async function idempotentMutation<T>(context: GraphQLContext, field: string, args: Record<string, unknown>, run: () => Promise<Result<T>>): Promise<T> {
  const { idempotencyKey, ...rest } = args;
  const call = { rawKey: idempotencyKey, keyField: 'idempotencyKey', method: 'GRAPHQL', path: field, body: rest };
  const outcome = unwrap(await idempotentCall(context.deps, gqlCtx(context), call, run));
  return outcome.replayed ? (unwrap(replayedResult(outcome.answer)) as T) : unwrap(outcome.result);
}

/** A use case's result as a Boolean mutation's answer: true once it succeeded. */
export function done(result: Result<unknown>): Result<true> {
  return result.ok ? { ok: true, value: true } : result;
}
