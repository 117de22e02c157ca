// The one place a refusal becomes a GraphQL error: the same code, upper-cased, in extensions.code.
import { GraphQLError } from 'graphql';
import type { Refusal, Result } from '../server/domain/errors.js';
import { REFUSAL_STATUS } from '../server/http/refusal-status.js';

export function toGraphQLError(refusal: Refusal): GraphQLError {
  return new GraphQLError(refusal.detail, {
    extensions: { code: refusal.code.toUpperCase(), status: REFUSAL_STATUS[refusal.code], ...refusal.extensions },
  });
}

/** Resolvers call use cases and `unwrap` the result: the value, or the mapped error thrown. */
export function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw toGraphQLError(result);
  return result.value;
}
