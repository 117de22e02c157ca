// Cursor paging kept in the URL (`page` and the `cursor` that opens it), so a page can be reloaded, shared
// and reached with the browser's Back button; "previous" steps back through the pages walked in this visit.
import { useCallback, useRef } from 'react';
import { useRouter, withQuery } from './router.js';

/** The page a URL's query opens: its number and cursor; a cursor without its page (or the other way round) is page 1. */
export function pageOf(query: URLSearchParams): { page: number; cursor: string | null } {
  const page = Math.max(1, Math.floor(Number(query.get('page'))) || 1);
  const cursor = page > 1 ? query.get('cursor') : null;
  return page === 1 || cursor ? { page, cursor } : { page: 1, cursor: null };
}

export function usePager() {
  const { location, navigate } = useRouter();
  const { page, cursor } = pageOf(location.query);
  const walked = useRef(0);
  const at = useCallback(
    (patch: { page?: number; cursor?: string | null }, replace = false) => {
      const query = Object.fromEntries(location.query.entries());
      navigate(withQuery(location.path, { ...query, page: patch.page && patch.page > 1 ? patch.page : null, cursor: patch.cursor ?? null }), { replace });
    },
    [location, navigate],
  );
  const next = useCallback(
    (nextCursor: string) => {
      walked.current += 1;
      at({ page: page + 1, cursor: nextCursor });
    },
    [at, page],
  );
  const previous = useCallback(() => {
    if (walked.current > 0) {
      walked.current -= 1;
      window.history.back();
    } else at({ page: 1 }, true);
  }, [at]);
  return { cursor, page, next, previous };
}

/** Filters kept in the URL: reading them, and changing some (which starts again at the first page). */
export function useUrlFilters<K extends string>(keys: readonly K[]): [Record<K, string>, (patch: Partial<Record<K, string>>) => void] {
  const { location, navigate } = useRouter();
  const filters = {} as Record<K, string>;
  for (const k of keys) filters[k] = location.query.get(k) ?? '';
  const set = (patch: Partial<Record<K, string>>) => navigate(withQuery(location.path, { ...filters, ...patch }), { replace: true });
  return [filters, set];
}
