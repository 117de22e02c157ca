// The signed-in layout: header with permission-aware navigation, and the routed page.
import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react';
import { useI18n } from './i18n/index.js';
import type { MessageKey } from './i18n/en.js';
import { Link, matchPath, useRouter, type Location } from './lib/router.js';
import type { PageRequest } from './lib/prefetch.js';
import { useSession } from './lib/session.js';
import { useTitle } from './lib/use-title.js';
import { Alert, Button, EmptyState, Loading, PageHeader } from './components/ui.js';
import { LanguageSwitch } from './components/language-switch.js';
import { CommandPalette } from './components/command-palette.js';
import { TensionsPage, tensionsRequest } from './pages/tensions-list.js';
import { TensionCreatePage } from './pages/tension-create.js';
import { TensionDetailPage } from './pages/tension-detail.js';
import { TensionHistoryPage } from './pages/tension-history.js';
import { ActorsPage } from './pages/actors.js';
import { UsersPage } from './pages/users-list.js';
import { UserDetailPage } from './pages/user-detail.js';
import { RolesPage } from './pages/roles-list.js';
import { RoleEditPage } from './pages/role-edit.js';
import { AccountPage } from './pages/account.js';
import { ActivityPage } from './pages/activity.js';
import { ConsentPage } from './pages/consent.js';
import { WebhooksPage } from './pages/webhooks-list.js';
import { WebhookDetailPage } from './pages/webhook-detail.js';

// The dashboard and its charting library load when it is opened, not with the first page.
const DashboardPage = lazy(() => import('./pages/dashboard.js').then((m) => ({ default: m.DashboardPage })));

interface Route {
  pattern: string;
  permission: string | null;
  render: (params: Record<string, string>) => ReactNode;
  /** the page's list query, when the URL alone builds it: sent beside `me` at the app's start (lib/prefetch.ts) */
  start?: (query: URLSearchParams) => PageRequest;
}

const ROUTES: Route[] = [
  { pattern: '/tensions', permission: 'tensions:read', render: () => <TensionsPage />, start: tensionsRequest },
  { pattern: '/tensions/new', permission: 'tensions:write', render: () => <TensionCreatePage /> },
  { pattern: '/tensions/:id', permission: 'tensions:read', render: (p) => <TensionDetailPage key={p.id} id={p.id} /> },
  { pattern: '/tensions/:id/history', permission: 'tensions:read', render: (p) => <TensionHistoryPage key={p.id} id={p.id} /> },
  { pattern: '/actors', permission: 'actors:read', render: () => <ActorsPage /> },
  { pattern: '/users', permission: 'users:read', render: () => <UsersPage /> },
  { pattern: '/users/:id', permission: 'users:read', render: (p) => <UserDetailPage key={p.id} id={p.id} /> },
  { pattern: '/roles', permission: 'roles:read', render: () => <RolesPage /> },
  { pattern: '/roles/new', permission: 'roles:write', render: () => <RoleEditPage key="new" id={null} /> },
  { pattern: '/roles/:id', permission: 'roles:read', render: (p) => <RoleEditPage key={p.id} id={p.id} /> },
  { pattern: '/activity', permission: 'audit:read', render: () => <ActivityPage /> },
  { pattern: '/account', permission: null, render: () => <AccountPage /> },
  { pattern: '/webhooks', permission: 'webhooks:read', render: () => <WebhooksPage /> },
  { pattern: '/webhooks/:id', permission: 'webhooks:read', render: (p) => <WebhookDetailPage key={p.id} id={p.id} /> },
  { pattern: '/oauth/consent/:uid', permission: null, render: (p) => <ConsentPage key={p.uid} uid={p.uid} /> },
  {
    pattern: '/dashboard',
    permission: null,
    render: () => (
      <Suspense fallback={<Loading />}>
        <DashboardPage />
      </Suspense>
    ),
  },
];

const NAV: { to: string; label: MessageKey; permission: string | null }[] = [
  { to: '/tensions', label: 'nav.tensions', permission: 'tensions:read' },
  { to: '/actors', label: 'nav.actors', permission: 'actors:read' },
  { to: '/users', label: 'nav.users', permission: 'users:read' },
  { to: '/roles', label: 'nav.roles', permission: 'roles:read' },
  { to: '/activity', label: 'nav.activity', permission: 'audit:read' },
  { to: '/webhooks', label: 'nav.webhooks', permission: 'webhooks:read' },
  { to: '/dashboard', label: 'nav.dashboard', permission: 'tensions:read' },
  { to: '/account', label: 'nav.account', permission: null },
];

/**
 * The list query the page at `location` starts with, when its URL alone builds it; null otherwise (a page that
 * needs `me` first, a detail page). `/` opens the navigation's first entry, the tensions list for a caller
 * who may read tensions (for one who may not, the request is refused and never shown).
 */
export function startRequest(location: Location): PageRequest | null {
  const path = location.path === '/' || location.path === '' ? '/tensions' : location.path;
  const route = ROUTES.find((r) => matchPath(r.pattern, path));
  return route?.start?.(location.query) ?? null;
}

export function Shell() {
  const { t } = useI18n();
  const { me, can, logout } = useSession();
  const { location, navigate } = useRouter();
  const nav = NAV.filter((n) => n.permission === null || can(n.permission));
  // on a phone the navigation folds behind a Menu button; following a link folds it again
  const [menu, setMenu] = useState({ open: false, path: location.path });
  const menuOpen = menu.open && menu.path === location.path;
  const setMenuOpen = (open: boolean) => setMenu({ open, path: location.path });

  useEffect(() => {
    if (location.path === '/' || location.path === '') navigate(nav[0].to, { replace: true });
  }, [location.path, navigate, nav]);

  // after a navigation, keyboard and screen-reader users start at the new page's content,
  // unless the page already put focus somewhere useful (an autofocused field)
  const shownPath = useRef(location.path);
  useEffect(() => {
    if (shownPath.current === location.path) return;
    shownPath.current = location.path;
    const active = document.activeElement;
    if (!active || active === document.body || active.closest('.topbar') || active.tagName === 'A') {
      document.getElementById('main')?.focus({ preventScroll: true });
    }
  }, [location.path]);

  let page: ReactNode = <NotFound />;
  for (const route of ROUTES) {
    const params = matchPath(route.pattern, location.path);
    if (!params) continue;
    page = route.permission === null || can(route.permission) ? route.render(params) : <Forbidden />;
    break;
  }

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        {t('app.skipToContent')}
      </a>
      <header className={`topbar${menuOpen ? ' open' : ''}`}>
        <div className="topbar-inner">
          <Link to="/" className="brand">
            <span className="brand-mark" aria-hidden="true">
              ◆
            </span>
            {t('app.title')}
          </Link>
          <Button className="nav-toggle" aria-expanded={menuOpen} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>
            <span aria-hidden="true">☰</span> {t('nav.menu')}
          </Button>
          <nav aria-label={t('nav.main')} className="mainnav" id="main-nav">
            <ul>
              {nav.map((n) => {
                const active = location.path === n.to || location.path.startsWith(`${n.to}/`);
                return (
                  <li key={n.to}>
                    <Link to={n.to} aria-current={active ? 'page' : undefined}>
                      {t(n.label)}
                    </Link>
                  </li>
                );
              })}
            </ul>
          </nav>
          <div className="topbar-tools">
            <span className="whoami" title={me.user.email}>
              {t('nav.signedInAs', { name: me.user.name })}
            </span>
            <LanguageSwitch />
            <Button variant="ghost" onClick={() => void logout()}>
              {t('nav.logout')}
            </Button>
          </div>
        </div>
      </header>
      <main id="main" className="content" tabIndex={-1}>
        {page}
      </main>
      <CommandPalette />
    </div>
  );
}

function NotFound() {
  const { t } = useI18n();
  useTitle(t('page.notFound.title'));
  return (
    <div className="state-page">
      <PageHeader title={t('page.notFound.title')} />
      <EmptyState>{t('common.notFoundPage')}</EmptyState>
    </div>
  );
}

function Forbidden() {
  const { t } = useI18n();
  useTitle(t('page.forbidden.title'));
  return (
    <div className="state-page">
      <PageHeader title={t('page.forbidden.title')} />
      <Alert kind="warning">{t('common.forbidden')}</Alert>
    </div>
  );
}
