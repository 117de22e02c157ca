// A small history-API router: the current location as state, links that push, and route matching.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type AnchorHTMLAttributes, type ReactNode } from 'react';

export interface Location {
  path: string;
  query: URLSearchParams;
}

interface RouterValue {
  location: Location;
  /** `force`: after the form was saved (its unsaved changes are not lost) */
  navigate(to: string, opts?: { replace?: boolean; force?: boolean }): void;
}

/**
 * Forms with unsaved changes, each with the question to ask before leaving them (in the app's language).
 * A navigation inside the app asks first; Back asks and stays if the answer is no; closing or reloading the
 * tab gets the browser's own prompt (its words are the browser's: no page may choose them).
 */
const unsaved = new Map<symbol, string>();

function mayLeave(): boolean {
  const [question] = unsaved.values();
  return question === undefined || window.confirm(question);
}

export function useUnsavedChanges(dirty: boolean, question: string): void {
  useEffect(() => {
    if (!dirty) return;
    const key = Symbol('unsaved');
    unsaved.set(key, question);
    const onBeforeUnload = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => {
      unsaved.delete(key);
      window.removeEventListener('beforeunload', onBeforeUnload);
    };
  }, [dirty, question]);
}

const RouterContext = createContext<RouterValue | null>(null);

function readLocation(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

export function RouterProvider({ children }: { children: ReactNode }) {
  const [location, setLocation] = useState(readLocation);
  useEffect(() => {
    const onPop = () => {
      // Back (or Forward) away from unsaved changes: answered no, the address goes back to where it was
      if (!mayLeave()) {
        window.history.pushState(null, '', `${location.path}${location.query.size ? `?${location.query.toString()}` : ''}`);
        return;
      }
      setLocation(readLocation());
    };
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, [location]);
  const navigate = useCallback((to: string, opts: { replace?: boolean; force?: boolean } = {}) => {
    // a replace follows the page's own state (a filter, a page number): never a question
    if (!opts.replace && !opts.force && !mayLeave()) return;
    if (opts.replace) window.history.replaceState(null, '', to);
    else window.history.pushState(null, '', to);
    setLocation(readLocation());
    if (!opts.replace) window.scrollTo(0, 0);
  }, []);
  const value = useMemo(() => ({ location, navigate }), [location, navigate]);
  return <RouterContext.Provider value={value}>{children}</RouterContext.Provider>;
}

export function useRouter(): RouterValue {
  const value = useContext(RouterContext);
  if (!value) throw new Error('useRouter outside RouterProvider');
  return value;
}

/** Matches `/tensions/:id` against a path; returns the params or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) params[p[i].slice(1)] = decodeURIComponent(s[i]);
    else if (p[i] !== s[i]) return null;
  }
  return params;
}

/** Builds `path?query` from a record, leaving out empty values. */
export function withQuery(path: string, query: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string };

export function Link({ to, onClick, ...rest }: LinkProps) {
  const { navigate } = useRouter();
  return (
    <a
      href={to}
      onClick={(e) => {
        onClick?.(e);
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
      {...rest}
    />
  );
}
