// The urql client: same-origin cookies, the CSRF header on every request, and one place that
// notices an expired session (UNAUTHENTICATED anywhere sends the user back to the login page).
import { Client, cacheExchange, fetchExchange, mapExchange } from 'urql';

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
      fetchExchange,
    ],
  });
}
