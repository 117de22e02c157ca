// A page's query that keeps what it has shown when a later fetch of it fails (a live reload while the browser
// is offline, the server restarting): the page stays mounted (an open dialog and what was typed in it stay),
// the failure becomes `retrying` (the page shows a small notice), and the query tries again by itself, at
// once when the browser says it is online again, else after a growing pause.
import { useEffect, useState } from 'react';
import { useQuery, type AnyVariables, type CombinedError, type UseQueryArgs, type UseQueryExecute, type UseQueryState } from 'urql';

const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 15_000;

interface KeptQueryState<Data, Variables extends AnyVariables> extends UseQueryState<Data, Variables> {
  /** a refetch failed while earlier data is shown: `data` is that earlier data, `error` is unset */
  retrying: CombinedError | null;
}

export function useKeptQuery<Data, Variables extends AnyVariables>(args: UseQueryArgs<Variables, Data>): [KeptQueryState<Data, Variables>, UseQueryExecute] {
  const [result, refetch] = useQuery<Data, Variables>(args);
  const key = JSON.stringify(args.variables ?? null);
  // the last data this query answered for these variables (another id's data is never shown)
  const [kept, setKept] = useState<{ key: string; data: Data } | null>(null);
  if (result.data !== undefined && (kept?.data !== result.data || kept.key !== key)) setKept({ key, data: result.data });
  const shown = kept?.key === key ? kept.data : undefined;
  // the failure of a fetch over data already shown; it lasts through the retries until data comes again
  // (urql drops a query's data on an error, and a retry's state has neither data nor error until it answers)
  const [failure, setFailure] = useState<{ key: string; error: CombinedError; attempt: number } | null>(null);
  const failed = result.error && result.data === undefined && shown !== undefined ? result.error : null;
  if (failed && failure?.error !== failed) setFailure({ key, error: failed, attempt: failure?.key === key ? failure.attempt + 1 : 0 });
  if (result.data !== undefined && failure) setFailure(null);

  useEffect(() => {
    if (args.pause || !result.error) return;
    const again = () => refetch({ requestPolicy: 'network-only' });
    // quiet retries over kept data, after a growing pause; a first load that failed (shown with its Retry)
    // retries by itself only when the browser says it is online again
    const timer = failure ? setTimeout(again, Math.min(RETRY_MIN_MS * 2 ** failure.attempt, RETRY_MAX_MS)) : undefined;
    window.addEventListener('online', again);
    return () => {
      clearTimeout(timer);
      window.removeEventListener('online', again);
    };
    // the effect follows each failure (a new error object), not each render
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [result.error, failure, args.pause]);

  if (result.data !== undefined || shown === undefined) return [{ ...result, retrying: null }, refetch];
  // no data of its own (a failed fetch, or the retry after one): the data shown before stays
  return [{ ...result, data: shown, error: undefined, retrying: failure?.key === key ? failure.error : null }, refetch];
}
