// Activity: the audit trail (SPEC §11), newest first, with its filters kept in the URL and cursor paging.
import { DayField } from '../components/day-field.js';
import { useMemo } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { usePager, useUrlFilters } from '../lib/use-pager.js';
import { useTitle } from '../lib/use-title.js';
import { ActivityTable, AuditLogDocument, auditContext, useAuditLabels } from '../components/activity.js';
import { UserField } from '../components/pickers.js';
import { ExportLinks } from '../components/export-links.js';
import { ListPaging, limitParam, pageSize } from '../components/list-footer.js';
import { Button, Field, PageHeader, ListStates } from '../components/ui.js';

const FILTERS = ['action', 'targetType', 'targetId', 'byUserId', 'aboutUserId', 'from', 'to'] as const;

/** The server's lists of actions and target types, so the filters offer exactly what the trail can hold. */
const AuditVocabularyDocument = graphql(`
  query AuditVocabulary {
    auditVocabulary { actions targetTypes }
  }
`);

/** A `YYYY-MM-DD` day from a date field as the instant its local day starts (`days` later); null when not a day. */
function dayStart(day: string, days = 0): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + days);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

export function ActivityPage() {
  const { t } = useI18n();
  const { actionText, targetTypeText } = useAuditLabels();
  useTitle(t('audit.title'));
  const pager = usePager();
  const [filters, setFilters] = useUrlFilters([...FILTERS, 'limit'] as const);
  const limit = pageSize(filters.limit);
  const filtered = FILTERS.some((k) => filters[k]);
  const context = useMemo(() => auditContext, []);
  const [{ data: vocabulary }] = useQuery({ query: AuditVocabularyDocument });
  const actions = vocabulary?.auditVocabulary.actions ?? [];
  const targetTypes = vocabulary?.auditVocabulary.targetTypes ?? [];
  const [{ data, error, fetching }, refetch] = useQuery({
    query: AuditLogDocument,
    variables: {
      action: filters.action || null,
      targetType: filters.targetType || null,
      targetId: filters.targetId || null,
      byUserId: filters.byUserId || null,
      aboutUserId: filters.aboutUserId || null,
      from: dayStart(filters.from),
      // the `to` day is included: the query's `to` is exclusive, so it is the start of the next day
      to: dayStart(filters.to, 1),
      limit,
      cursor: pager.cursor,
      // the Activity page's "1–20 of N"; the user's and role's sections show their latest entries only
      withTotal: true,
    },
    context,
  });
  const rows = data?.auditLog.data ?? [];
  const clear = () => setFilters(Object.fromEntries(FILTERS.map((k) => [k, ''])));
  return (
    <>
      <PageHeader
        title={t('audit.title')}
        actions={
          <ExportLinks
            list="audit"
            permission="audit:read"
            filters={{
              action: filters.action,
              targetType: filters.targetType,
              targetId: filters.targetId,
              byUserId: filters.byUserId,
              aboutUserId: filters.aboutUserId,
              from: dayStart(filters.from),
              to: dayStart(filters.to, 1),
            }}
          />
        }
      />
      <form noValidate className="filters card" role="search" aria-label={t('common.filters')} onSubmit={(e) => e.preventDefault()}>
        <Field label={t('audit.action')}>
          {(p) => (
            <select {...p} name="action" value={filters.action} onChange={(e) => setFilters({ action: e.target.value })}>
              <option value="">{t('common.any')}</option>
              {actions.map((a) => (
                <option key={a} value={a}>
                  {actionText(a)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t('audit.targetType')}>
          {(p) => (
            <select {...p} name="targetType" value={filters.targetType} onChange={(e) => setFilters({ targetType: e.target.value })}>
              <option value="">{t('common.any')}</option>
              {targetTypes.map((a) => (
                <option key={a} value={a}>
                  {targetTypeText(a)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <UserField label={t('audit.byUser')} optional noneLabel={t('common.any')} value={filters.byUserId} onChange={(byUserId) => setFilters({ byUserId })} />
        <DayField label={t('audit.from')} name="from" value={filters.from} onChange={(from) => setFilters({ from })} />
        <DayField label={t('audit.to')} name="to" value={filters.to} onChange={(to) => setFilters({ to })} />
        {filters.targetId ? (
          <p className="filter-chip">
            {t('audit.targetIdFilter', { id: rows.find((r) => r.target.id === filters.targetId)?.target.label ?? filters.targetId })}{' '}
            <Button variant="ghost" onClick={() => setFilters({ targetId: '' })}>
              {t('audit.anyTarget')}
            </Button>
          </p>
        ) : null}
        {filters.aboutUserId ? (
          <p className="filter-chip">
            {t('audit.aboutUserFilter', { id: rows.find((r) => r.target.id === filters.aboutUserId)?.target.label ?? filters.aboutUserId })}{' '}
            <Button variant="ghost" onClick={() => setFilters({ aboutUserId: '' })}>
              {t('audit.anyTarget')}
            </Button>
          </p>
        ) : null}
        {filtered ? (
          <Button variant="ghost" onClick={clear}>
            {t('common.clearFilters')}
          </Button>
        ) : null}
      </form>
      <ListStates
        data={data}
        error={error}
        fetching={fetching}
        refetch={refetch}
        empty={() => (rows.length === 0 && pager.page === 1 ? t('audit.empty') : null)}
      >
        {(data) => (
          <>
            <div className="card">
              <ActivityTable entries={rows} caption={t('audit.title')} />
            </div>
            <ListPaging
              pager={pager}
              nextCursor={data.auditLog.nextCursor}
              limit={limit}
              shown={rows.length}
              total={data.auditLogTotal}
              onPageSize={(n) => setFilters({ limit: limitParam(n) })}
            />
          </>
        )}
      </ListStates>
    </>
  );
}
