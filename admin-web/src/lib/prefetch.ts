// The app's start without a waterfall (issue 36): the page's list query goes out beside `me` instead of after
// it, when the route builds it from the URL alone. The page then takes that answer on its first render rather
// than asking again; a signed-out visitor's list request is refused like `me` and nothing of it is shown.
import { useEffect, useState } from 'react';
import { createRequest, useClient, type AnyVariables, type Client, type DocumentInput, type OperationContext, type RequestPolicy } from 'urql';

export interface PageRequest<Data = unknown, Variables extends AnyVariables = AnyVariables> {
  query: DocumentInput<Data, Variables>;
  variables: Variables;
  context?: Partial<OperationContext>;
}

/** The requests a client sent at the app's start, by operation key, until their page shows them. */
const started = new WeakMap<Client, Set<number>>();

/** Sends a page's request now; the document cache keeps its answer for the page (urql shares it while in flight). */
export function startPageRequest(client: Client, request: PageRequest): void {
  const { key } = createRequest(request.query, request.variables);
  started.set(client, (started.get(client) ?? new Set()).add(key));
  void client.query(request.query, request.variables, request.context).toPromise();
}

/**
 * The request policy of a page's query: `cache-first` for the request sent at the app's start, so its answer
 * (or the request still in flight) serves the page's first render instead of a second request; the client's
 * default once the page asks for anything else.
 */
export function useStartedRequestPolicy(request: PageRequest): RequestPolicy | undefined {
  const client = useClient();
  const { key } = createRequest(request.query, request.variables);
  const [startKey, setStartKey] = useState(() => (started.get(client)?.has(key) ? key : null));
  if (startKey !== null && startKey !== key) setStartKey(null);
  useEffect(() => {
    started.get(client)?.delete(key);
  }, [client, key]);
  return startKey === key ? 'cache-first' : undefined;
}
