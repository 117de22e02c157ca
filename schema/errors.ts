// The one place GraphQL errors are built (SPEC §7: every one carries a code in extensions.code); a refusal
// becomes one with the same code, upper-cased.
import { GraphQLError } from 'graphql';
import type { Refusal, Result } from '../server/domain/errors.js';
import { REFUSAL_STATUS } from '../server/http/refusal-status.js';

/** A GraphQL error: its message, its code, then any further extensions. */
export function graphqlError(code: string, message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extensions } });
}

/** A whole GraphQL answer of one error, for an HTTP answer given before (or instead of) execution. */
export function graphqlErrorBody(code: string, message: string, extensions: Record<string, unknown> = {}): { errors: unknown[] } {
  return { errors: [graphqlError(code, message, extensions).toJSON()] };
}

export function toGraphQLError(refusal: Refusal): GraphQLError {
  return graphqlError(refusal.code.toUpperCase(), refusal.detail, { status: REFUSAL_STATUS[refusal.code], ...refusal.extensions });
}

/** Resolvers call use cases and `unwrap` the result: the value, or the mapped error thrown. */
export function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw toGraphQLError(result);
  return result.value;
}
