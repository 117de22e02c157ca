// The urql client: same-origin cookies, the CSRF header on every request, and one place that
// notices an expired session (UNAUTHENTICATED anywhere sends the user back to the login page).
import { Client, cacheExchange, fetchExchange, mapExchange, type OperationResult } from 'urql';

/**
 * Context flag of a mutation whose caller applies the answer itself (a tension command returns the tension
 * and its history entry): the document cache then invalidates only the mutation's `additionalTypenames`,
 * not every query holding a type the answer mentions, so an edit costs one request instead of a refetch round.
 */
export const APPLIED_BY_CALLER = { appliedByCaller: true } as const;

function withoutTypenames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTypenames);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== '__typename')
      .map(([k, v]) => [k, withoutTypenames(v)]),
  );
}

function appliedByCaller(result: OperationResult): OperationResult {
  if (result.operation.kind !== 'mutation' || !result.operation.context.appliedByCaller || !result.data) return result;
  return { ...result, data: withoutTypenames(result.data) };
}

export function createClient(onUnauthenticated: () => void): Client {
  return new Client({
    url: '/graphql',
    fetchOptions: { credentials: 'same-origin', headers: { 'X-CSRF-Protection': '1' } },
    requestPolicy: 'cache-and-network',
    exchanges: [
      mapExchange({
        onError(error, operation) {
          const unauthenticated = error.graphQLErrors.some((e) => e.extensions?.code === 'UNAUTHENTICATED');
          if (unauthenticated && operation.kind !== 'teardown') onUnauthenticated();
        },
      }),
      cacheExchange,
      // between the cache and the network: the cache reads typenames from what this passes up
      mapExchange({ onResult: appliedByCaller }),
      fetchExchange,
    ],
  });
}
