// Global search and keyboard (issue 36): ⌘K / Ctrl+K or `/` opens a search over tensions (name), users (name or
// email), actors (name), roles (name or code) and API keys (prefix as shown, name; a key opens its user's page),
// or one of them by id; `?` lists the shortcuts; `g t` and `g u` go to the tension and
// user lists. Keys typed into a field are the field's, never a shortcut.
import { useEffect, useRef, useState } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { useRouter } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { Dialog } from './ui.js';

const SearchDocument = graphql(`
  query GlobalSearch($q: String!, $tensions: Boolean!, $users: Boolean!, $actors: Boolean!, $roles: Boolean!) {
    tensions(q: $q, limit: 5) @include(if: $tensions) { data { id name } }
    users(q: $q, limit: 5) @include(if: $users) { data { id name email } }
    actors(q: $q, limit: 5) @include(if: $actors) { data { id name } }
    roles(q: $q, limit: 5) @include(if: $roles) { data { id name code } }
    apiKeySearch(q: $q, limit: 5) @include(if: $users) { data { id name prefix revokedAt user { id name } } }
  }
`);

interface Hit {
  kind: 'tension' | 'user' | 'actor' | 'role' | 'key';
  label: string;
  detail?: string;
  href: string;
}

const typing = (el: EventTarget | null) =>
  el instanceof HTMLElement && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName) || el.closest('dialog') !== null);

export function CommandPalette() {
  const { t } = useI18n();
  const { can } = useSession();
  const { navigate } = useRouter();
  const [open, setOpen] = useState<'search' | 'help' | null>(null);
  const [q, setQ] = useState('');
  const [debounced, setDebounced] = useState('');
  const [active, setActive] = useState(0);
  const g = useRef(0);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setOpen('search');
        return;
      }
      if (e.metaKey || e.ctrlKey || e.altKey || typing(e.target)) return;
      if (e.key === '/') {
        e.preventDefault();
        setOpen('search');
      } else if (e.key === '?') setOpen('help');
      else if (e.key === 'g') g.current = Date.now();
      else if (Date.now() - g.current < 1500 && (e.key === 't' || e.key === 'u')) {
        g.current = 0;
        navigate(e.key === 't' ? '/tensions' : '/users');
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [navigate]);

  useEffect(() => {
    const id = setTimeout(() => setDebounced(q.trim()), 200);
    return () => clearTimeout(id);
  }, [q]);

  const [{ data, fetching }] = useQuery({
    query: SearchDocument,
    variables: { q: debounced, tensions: can('tensions:read'), users: can('users:read'), actors: can('actors:read'), roles: can('roles:read') },
    pause: open !== 'search' || debounced.length === 0,
  });
  const hits: Hit[] = debounced
    ? [
        ...(data?.tensions?.data ?? []).map((x) => ({ kind: 'tension' as const, label: x.name, href: `/tensions/${x.id}` })),
        ...(data?.users?.data ?? []).map((x) => ({ kind: 'user' as const, label: x.name, detail: x.email, href: `/users/${x.id}` })),
        ...(data?.actors?.data ?? []).map((x) => ({ kind: 'actor' as const, label: x.name, href: `/tensions?actorId=${x.id}` })),
        ...(data?.roles?.data ?? []).map((x) => ({ kind: 'role' as const, label: x.name, detail: x.code, href: `/roles/${x.id}` })),
        ...(data?.apiKeySearch?.data ?? []).map((x) => ({
          kind: 'key' as const,
          label: x.name,
          detail: [x.prefix, x.user.name, ...(x.revokedAt ? [t('search.keyRevoked')] : [])].join(' · '),
          href: `/users/${x.user.id}`,
        })),
      ]
    : [];
  // an id goes straight to its page: a tension's, else a user's (the page says if it does not exist)
  const isId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(debounced);
  if (isId) {
    if (can('tensions:read')) hits.unshift({ kind: 'tension', label: t('search.openTension', { id: debounced }), href: `/tensions/${debounced}` });
    if (can('users:read')) hits.push({ kind: 'user', label: t('search.openUser', { id: debounced }), href: `/users/${debounced}` });
  }

  const close = () => {
    setOpen(null);
    setQ('');
    setActive(0);
  };
  const go = (hit: Hit | undefined) => {
    if (!hit) return;
    close();
    navigate(hit.href);
  };

  return (
    <>
      <Dialog title={t('search.title')} open={open === 'search'} onClose={close}>
        <div className="palette">
          <input
            className="palette-input"
            type="search"
            role="combobox"
            aria-expanded={hits.length > 0}
            aria-controls="palette-results"
            aria-activedescendant={hits.length ? `palette-hit-${Math.min(active, hits.length - 1)}` : undefined}
            aria-label={t('search.label')}
            placeholder={t('search.placeholder')}
            autoFocus
            value={q}
            onChange={(e) => {
              setQ(e.target.value);
              setActive(0);
            }}
            onKeyDown={(e) => {
              if (e.key === 'ArrowDown') {
                e.preventDefault();
                setActive((a) => Math.min(a + 1, hits.length - 1));
              } else if (e.key === 'ArrowUp') {
                e.preventDefault();
                setActive((a) => Math.max(a - 1, 0));
              } else if (e.key === 'Enter') {
                e.preventDefault();
                go(hits[Math.min(active, hits.length - 1)]);
              }
            }}
          />
          <ul id="palette-results" role="listbox" aria-label={t('search.results')} className="palette-results">
            {hits.map((h, i) => (
              <li
                key={`${h.kind}-${h.href}`}
                id={`palette-hit-${i}`}
                role="option"
                aria-selected={i === Math.min(active, hits.length - 1)}
                onClick={() => go(h)}
              >
                <span className="palette-kind">{t(`search.kind.${h.kind}`)}</span> {h.label}
                {h.detail ? <span className="muted"> · {h.detail}</span> : null}
              </li>
            ))}
          </ul>
          {debounced && !fetching && hits.length === 0 ? <p className="muted">{t('search.none')}</p> : null}
        </div>
      </Dialog>
      <Dialog title={t('search.shortcuts')} open={open === 'help'} onClose={close}>
        <dl className="shortcuts">
          <dt>
            <kbd>⌘</kbd> <kbd>K</kbd> / <kbd>/</kbd>
          </dt>
          <dd>{t('search.title')}</dd>
          <dt>
            <kbd>g</kbd> <kbd>t</kbd>
          </dt>
          <dd>{t('search.goTensions')}</dd>
          <dt>
            <kbd>g</kbd> <kbd>u</kbd>
          </dt>
          <dd>{t('search.goUsers')}</dd>
          <dt>
            <kbd>?</kbd>
          </dt>
          <dd>{t('search.shortcuts')}</dd>
        </dl>
      </Dialog>
    </>
  );
}
