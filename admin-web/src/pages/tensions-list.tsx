// Tensions: filters (kept in the URL), sort, cursor paging, and the way to sense a new one.
import { ListPaging, limitParam, pageSize } from '../components/list-footer.js';
import { asTensionSort, asTensionState, TENSION_SORTS } from '../lib/enums';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import type { MessageKey } from '../i18n/en.js';
import { Link, useRouter, withQuery } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { useFlash } from '../lib/flash.js';
import { pageOf, usePager } from '../lib/use-pager.js';
import { useStartedRequestPolicy } from '../lib/prefetch.js';
import { useTitle } from '../lib/use-title.js';
import { ActorField, UserField } from '../components/pickers.js';
import { ActorLink, LeadName, STATES, ScorePill, StateBadge } from '../components/tension-bits.js';
import { Alert, Button, EmptyState, ErrorAlert, Field, Loading, PageHeader, SearchField } from '../components/ui.js';
import { LiveIndicator } from '../components/live-indicator.js';
import { useLiveEvents } from '../lib/use-live-events.js';
import { ExportLinks } from '../components/export-links.js';
import { TensionBulkBar, useMatchingTensions } from '../components/bulk-tensions.js';
import type { BulkItem } from '../components/bulk-actions.js';

const TensionsDocument = graphql(`
  query Tensions($state: TensionState, $actorId: ID, $leadUserId: ID, $q: String, $minScore: Int, $sort: TensionSort, $limit: Int, $cursor: String) {
    tensions(state: $state, actorId: $actorId, leadUserId: $leadUserId, q: $q, minScore: $minScore, sort: $sort, limit: $limit, cursor: $cursor) {
      data {
        id name score state version updatedAt
        actor { id name type }
        lead { id name type status }
      }
      nextCursor
    }
    tensionsTotal(state: $state, actorId: $actorId, leadUserId: $leadUserId, q: $q, minScore: $minScore) {
      count
      exact
    }
  }
`);

/** Columns the API sorts by, and the direction a first click asks for. */
const SORTABLE: Record<string, { field: string; first: '' | '-' }> = {
  name: { field: 'name', first: '' },
  score: { field: 'score', first: '-' },
  updated: { field: 'updatedAt', first: '-' },
  state: { field: 'state', first: '' },
  actor: { field: 'actor', first: '' },
  lead: { field: 'lead', first: '' },
};
const FILTERS = ['state', 'actorId', 'leadUserId', 'q', 'minScore', 'sort', 'limit'] as const;
/** how long typing must pause before the list searches */
const SEARCH_PAUSE_MS = 250;
/** at most one reload of the list per this many ms from live changes */
const LIVE_RELOAD_MS = 1_000;
type Filters = Record<(typeof FILTERS)[number], string>;

function filtersOf(query: URLSearchParams): Filters {
  const f = {} as Filters;
  for (const k of FILTERS) f[k] = query.get(k) ?? '';
  return f;
}

/** The list's filters as the API takes them (the bulk selection's "every matching tension" too). */
function filterVariables(filters: Filters) {
  return {
    state: asTensionState(filters.state),
    actorId: filters.actorId || null,
    leadUserId: filters.leadUserId || null,
    q: filters.q || null,
    minScore: filters.minScore ? Number(filters.minScore) : null,
    sort: asTensionSort(filters.sort),
  };
}

const LIST_CONTEXT = { additionalTypenames: ['Tension'] };

/** The list's query for a URL: built from the URL alone, so the app's start sends it beside `me` (lib/prefetch.ts). */
export function tensionsRequest(query: URLSearchParams) {
  const filters = filtersOf(query);
  return {
    query: TensionsDocument,
    variables: { ...filterVariables(filters), limit: pageSize(filters.limit), cursor: pageOf(query).cursor },
    context: LIST_CONTEXT,
  };
}

export function TensionsPage() {
  const flash = useFlash();
  const { t } = useI18n();
  useTitle(t('tensions.title'));
  const { can } = useSession();
  const { location, navigate } = useRouter();
  const filters = useMemo(() => filtersOf(location.query), [location.query]);
  const setFilter = (patch: Partial<Filters>) => navigate(withQuery('/tensions', { ...filters, ...patch }), { replace: true });
  const filtered = FILTERS.some((k) => k !== 'sort' && k !== 'limit' && filters[k]);

  return (
    <>
      <PageHeader
        title={t('tensions.title')}
        actions={
          <>
            <ExportLinks list="tensions" permission="tensions:read" filters={{ ...filters, limit: null }} />
            {can('tensions:write') ? (
              <Link className="btn btn-primary" to="/tensions/new">
                + {t('tensions.new')}
              </Link>
            ) : null}
          </>
        }
      />
      {flash ? <Alert kind="success">{t(flash.key, flash.params)}</Alert> : null}
      <TensionFilters filters={filters} setFilter={setFilter} clear={() => navigate('/tensions', { replace: true })} filtered={filtered} />
      <TensionTable
        key={JSON.stringify(filters)}
        filters={filters}
        filtered={filtered}
        onSort={(sort) => setFilter({ sort: sort === '-score' ? '' : sort })}
        onPageSize={(n) => setFilter({ limit: limitParam(n) })}
      />
    </>
  );
}

function TensionFilters({
  filters,
  setFilter,
  clear,
  filtered,
}: {
  filters: Filters;
  setFilter: (p: Partial<Filters>) => void;
  clear: () => void;
  filtered: boolean;
}) {
  const { t } = useI18n();
  const { can } = useSession();
  const [q, setQ] = useState(filters.q);
  const [searched, setSearched] = useState(filters.q);
  if (searched !== filters.q) {
    setSearched(filters.q);
    // the search this field started keeps what is being typed (a trailing space included)
    if (q.trim() !== filters.q) setQ(filters.q);
  }
  // Searches as the operator types, once typing pauses: a word costs one list request, not one per letter,
  // and the list of the text typed past is torn down (urql aborts its request) when the next one starts.
  const typed = q.trim();
  useEffect(() => {
    if (typed === filters.q) return;
    const timer = setTimeout(() => setFilter({ q: typed }), SEARCH_PAUSE_MS);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [typed, filters.q]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setFilter({ q: q.trim() });
  };
  return (
    <form noValidate className="filters card" onSubmit={submit} role="search" aria-label={t('common.filters')}>
      <SearchField label={t('tensions.filter.q')} placeholder={t('tensions.filter.qPlaceholder')} value={q} onChange={setQ} />
      <Field label={t('tensions.filter.state')}>
        {(p) => (
          <select {...p} name="state" value={filters.state} onChange={(e) => setFilter({ state: e.target.value })}>
            <option value="">{t('common.any')}</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {t(`tension.state.${s}` as MessageKey)}
              </option>
            ))}
          </select>
        )}
      </Field>
      {can('actors:read') ? (
        <ActorField label={t('tensions.filter.actor')} noneLabel={t('common.any')} value={filters.actorId} onChange={(actorId) => setFilter({ actorId })} />
      ) : null}
      {/* every user, deactivated ones too (marked): their old tensions stay findable */}
      {can('users:read') ? (
        <UserField
          label={t('tensions.filter.lead')}
          noneLabel={t('common.any')}
          value={filters.leadUserId}
          onChange={(leadUserId) => setFilter({ leadUserId })}
        />
      ) : null}
      <Field label={t('tensions.filter.minScore')}>
        {(p) => (
          <select {...p} name="minScore" value={filters.minScore} onChange={(e) => setFilter({ minScore: e.target.value })}>
            <option value="">{t('common.any')}</option>
            {Array.from({ length: 10 }, (_, i) => i + 1).map((n) => (
              <option key={n} value={n}>
                ≥ {n}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t('tensions.sort')}>
        {(p) => (
          <select {...p} name="sort" value={filters.sort || '-score'} onChange={(e) => setFilter({ sort: e.target.value === '-score' ? '' : e.target.value })}>
            {TENSION_SORTS.map((s) => (
              <option key={s} value={s}>
                {t(`tensions.sort.${s}`)}
              </option>
            ))}
          </select>
        )}
      </Field>
      {filtered ? (
        <Button variant="ghost" onClick={clear} className="filters-clear">
          {t('common.clearFilters')}
        </Button>
      ) : null}
    </form>
  );
}

function TensionTable({
  filters,
  filtered,
  onSort,
  onPageSize,
}: {
  filters: Filters;
  filtered: boolean;
  onSort: (sort: string) => void;
  onPageSize: (n: number) => void;
}) {
  const { t, formatDate } = useI18n();
  const limit = pageSize(filters.limit);
  const { can } = useSession();
  const pager = usePager();
  const { location } = useRouter();
  const request = tensionsRequest(location.query);
  const requestPolicy = useStartedRequestPolicy(request);
  const [{ data, error, fetching }, refetch] = useQuery({ ...request, requestPolicy });
  // bulk selection (issue 36): rows of this page, or every tension matching the filter
  const bulk = can('tensions:write');
  const [selected, setSelected] = useState<Map<string, BulkItem>>(new Map());
  const [matching, setMatching] = useState<{ loading: boolean; capped: boolean }>({ loading: false, capped: false });
  const matchingTensions = useMatchingTensions();
  const toggle = (items: BulkItem[], on: boolean) =>
    setSelected((prev) => {
      const next = new Map(prev);
      for (const i of items) {
        if (on) next.set(i.id, i);
        else next.delete(i.id);
      }
      return next;
    });
  const selectMatching = async () => {
    setMatching({ loading: true, capped: false });
    try {
      const { items, capped } = await matchingTensions(filterVariables(filters));
      setSelected(new Map(items.map((i) => [i.id, i])));
      setMatching({ loading: false, capped });
    } catch {
      setMatching({ loading: false, capped: false });
    }
  };
  const sort = filters.sort || '-score';
  // Under a busy feed (hundreds of changes a second at scale) the page reloads at most once a second: the
  // first change at once, the rest of that second's changes in one reload at its end.
  const reload = useRef<{ last: number; timer: ReturnType<typeof setTimeout> | null }>({ last: 0, timer: null });
  useEffect(() => () => clearTimeout(reload.current.timer ?? undefined), []);
  const live = useLiveEvents({
    onEvent: () => {
      const r = reload.current;
      if (r.timer) return;
      const run = () => {
        r.timer = null;
        r.last = Date.now();
        refetch({ requestPolicy: 'network-only' });
      };
      const wait = r.last + LIVE_RELOAD_MS - Date.now();
      if (wait <= 0) run();
      else r.timer = setTimeout(run, wait);
    },
  });
  if (error && !data) return <ErrorAlert error={error} onRetry={() => refetch({ requestPolicy: 'network-only' })} />;
  if (!data) return fetching ? <Loading /> : null;
  const rows = data.tensions.data;
  // A search of one or two characters reads part of the list a page (issue 37): a short or empty page with a
  // next one is not the end, and says so.
  const searchGoesOn = Boolean(data.tensions.nextCursor) && rows.length < limit;
  if (rows.length === 0 && pager.page === 1 && !data.tensions.nextCursor)
    return <EmptyState>{filtered ? t('tensions.empty') : t('tensions.emptyAll')}</EmptyState>;
  const pageItems: BulkItem[] = rows.map((r) => ({ id: r.id, name: r.name, href: `/tensions/${r.id}` }));
  const pageSelected = pageItems.length > 0 && pageItems.every((i) => selected.has(i.id));
  const morePages = Boolean(data.tensions.nextCursor) || pager.page > 1;
  return (
    <>
      <LiveIndicator state={live} />
      {bulk ? (
        <>
          {pageSelected && morePages ? (
            <div className="bulk-matching">
              <Button variant="ghost" disabled={matching.loading} onClick={() => void selectMatching()}>
                {matching.loading ? t('bulk.selectingMatching') : t('bulk.selectMatching')}
              </Button>
              {matching.capped ? <span className="muted">{t('bulk.capped', { max: 5000 })}</span> : null}
            </div>
          ) : null}
          <TensionBulkBar
            selected={[...selected.values()]}
            onClear={() => setSelected(new Map())}
            onDone={() => {
              setSelected(new Map());
              refetch({ requestPolicy: 'network-only' });
            }}
          />
        </>
      ) : null}
      <div className="table-wrap card">
        <table className="table">
          <caption className="visually-hidden">{t('tensions.title')}</caption>
          <thead>
            <tr>
              {bulk ? (
                <th scope="col" className="select-cell">
                  <input type="checkbox" aria-label={t('bulk.selectPage')} checked={pageSelected} onChange={(e) => toggle(pageItems, e.target.checked)} />
                </th>
              ) : null}
              <SortHeader column="name" label={t('tensions.col.name')} sort={sort} onSort={onSort} />
              <SortHeader column="score" label={t('tensions.col.score')} sort={sort} onSort={onSort} className="num" />
              <SortHeader column="state" label={t('tensions.col.state')} sort={sort} onSort={onSort} />
              <SortHeader column="actor" label={t('tensions.col.actor')} sort={sort} onSort={onSort} />
              <SortHeader column="lead" label={t('tensions.col.lead')} sort={sort} onSort={onSort} />
              <SortHeader column="updated" label={t('tensions.col.updated')} sort={sort} onSort={onSort} />
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                {bulk ? (
                  <td className="select-cell">
                    <input
                      type="checkbox"
                      aria-label={t('bulk.selectRow', { name: r.name })}
                      checked={selected.has(r.id)}
                      onChange={(e) => toggle([{ id: r.id, name: r.name, href: `/tensions/${r.id}` }], e.target.checked)}
                    />
                  </td>
                ) : null}
                <td>
                  <Link to={`/tensions/${r.id}`} className="row-link">
                    {r.name}
                  </Link>
                </td>
                <td className="num" data-label={t('tensions.col.score')}>
                  <ScorePill score={r.score} />
                </td>
                <td data-label={t('tensions.col.state')}>
                  <StateBadge state={r.state} />
                </td>
                <td data-label={t('tensions.col.actor')}>
                  <ActorLink actor={r.actor} />
                </td>
                <td data-label={t('tensions.col.lead')}>
                  <LeadName lead={r.lead} />
                </td>
                <td className="muted nowrap" data-label={t('tensions.col.updated')}>
                  {formatDate(r.updatedAt)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {searchGoesOn ? (
        <p className="muted" role="status" data-testid="search-goes-on">
          {t('tensions.searchGoesOn')}
        </p>
      ) : null}
      <ListPaging pager={pager} nextCursor={data.tensions.nextCursor} limit={limit} shown={rows.length} total={data.tensionsTotal} onPageSize={onPageSize} />
    </>
  );
}

/** A column header that sorts the list by its column (the API's sort), saying which way it is sorted now. */
function SortHeader({
  column,
  label,
  sort,
  onSort,
  className,
}: {
  column: string;
  label: string;
  sort: string;
  onSort: (sort: string) => void;
  className?: string;
}) {
  const { t } = useI18n();
  const { field, first } = SORTABLE[column];
  const current = sort === field ? 'ascending' : sort === `-${field}` ? 'descending' : undefined;
  const nextSort = current === 'ascending' ? `-${field}` : current === 'descending' ? field : `${first}${field}`;
  return (
    <th scope="col" className={className} aria-sort={current ?? 'none'}>
      <button type="button" className="th-sort" onClick={() => onSort(nextSort)} title={t('common.sortBy', { column: label })}>
        {label}
        <span aria-hidden="true">{current === 'ascending' ? '▲' : current === 'descending' ? '▼' : '↕'}</span>
      </button>
    </th>
  );
}
