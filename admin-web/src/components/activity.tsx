// Audit entries as a table (the Activity page and the Activity sections of a user's and a role's page).
import { useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../gql/index.js';
import type { AuditLogQuery } from '../gql/graphql.js';
import { useI18n } from '../i18n/index.js';
import { isMessageKey } from '../i18n/translate.js';
import { changeRows, targetHref } from '../lib/audit.js';
import { Link, withQuery } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { Badge, EmptyState, ErrorAlert, Loading } from './ui.js';
import { PickActorDocument, PickUserDocument } from './pickers.js';
import { useRoleOptions } from './role-picker.js';

export const AuditLogDocument = graphql(`
  query AuditLog(
    $action: String
    $targetType: String
    $targetId: ID
    $byUserId: ID
    $aboutUserId: ID
    $from: DateTime
    $to: DateTime
    $limit: Int
    $cursor: String
    $withTotal: Boolean = false
  ) {
    auditLog(
      action: $action
      targetType: $targetType
      targetId: $targetId
      byUserId: $byUserId
      aboutUserId: $aboutUserId
      from: $from
      to: $to
      limit: $limit
      cursor: $cursor
    ) {
      data {
        id at action changes
        by { kind userId userName apiKeyId apiKeyName via }
        target { type id label }
      }
      nextCursor
    }
    auditLogTotal(action: $action, targetType: $targetType, targetId: $targetId, byUserId: $byUserId, aboutUserId: $aboutUserId, from: $from, to: $to)
      @include(if: $withTotal) {
      count
      exact
    }
  }
`);

type Entry = AuditLogQuery['auditLog']['data'][number];

export const auditContext = { additionalTypenames: ['AuditEntry', 'User', 'Role', 'ApiKey', 'CreatedApiKey', 'Actor'] };

/** An action's and a target type's label from the catalogue; the name itself when the catalogue has none yet. */
export function useAuditLabels() {
  const { t } = useI18n();
  const label = (key: string, name: string) => (isMessageKey(key) ? t(key) : name);
  return {
    actionText: (action: string) => label(`audit.action.${action}`, action),
    targetTypeText: (type: string) => label(`audit.target.${type}`, type),
    fieldText: (field: string) => label(`audit.field.${field}`, field),
  };
}

/**
 * One side of a change as a person reads it: the names of the roles, actor or user an id stands for (as they
 * are now; the id itself when that is gone or not readable), and a type or status in the reader's language.
 */
function ChangeValue({ field, value, shown, targetType }: { field: string; value: unknown; shown: string; targetType: string }) {
  const { t } = useI18n();
  const roles = useRoleOptions();
  if ((field === 'roleIds' || field === 'inherits') && Array.isArray(value)) {
    if (value.length === 0) return <>–</>;
    const names = value.map((id) => roles.find((r) => r.id === id)?.name ?? shortId(String(id)));
    return <>{names.join(', ')}</>;
  }
  if (field === 'linkedActorId' && typeof value === 'string') return <ActorName id={value} />;
  if (field === 'userId' && typeof value === 'string') return <UserName id={value} />;
  if (typeof value === 'string') {
    const key = field === 'status' ? `users.status.${value}` : field === 'type' ? `${targetType === 'actor' ? 'actors' : 'users'}.type.${value}` : '';
    if (key && isMessageKey(key)) return <>{t(key)}</>;
  }
  return <>{shown}</>;
}

const shortId = (id: string) => (id.length > 8 ? `${id.slice(0, 8)}…` : id);

function ActorName({ id }: { id: string }) {
  const { can } = useSession();
  const [{ data }] = useQuery({ query: PickActorDocument, variables: { id }, pause: !can('actors:read') });
  return <span title={id}>{data?.actor?.name ?? shortId(id)}</span>;
}

function UserName({ id }: { id: string }) {
  const { can } = useSession();
  const [{ data }] = useQuery({ query: PickUserDocument, variables: { id }, pause: !can('users:read') });
  return <span title={id}>{data?.user?.name ?? shortId(id)}</span>;
}

export function ActivityTable({ entries, caption }: { entries: Entry[]; caption: string }) {
  const { t, formatDate } = useI18n();
  const { actionText, targetTypeText, fieldText } = useAuditLabels();
  return (
    <div className="table-wrap">
      <table className="table activity-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{t('audit.when')}</th>
            <th scope="col">{t('audit.action')}</th>
            <th scope="col">{t('audit.by')}</th>
            <th scope="col">{t('audit.target')}</th>
            <th scope="col">{t('audit.changes')}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => {
            const href = targetHref(e.target, e.changes);
            const label = e.target.label ?? e.target.id ?? '';
            const changes = changeRows(e.changes);
            const byKind = `audit.kind.${e.by.kind}`;
            return (
              <tr key={e.id} data-action={e.action}>
                <td className="nowrap" data-label={t('audit.when')}>
                  <time dateTime={e.at}>{formatDate(e.at)}</time>
                </td>
                <td data-label={t('audit.action')}>{actionText(e.action)}</td>
                <td data-label={t('audit.by')}>
                  {e.by.userId ? (
                    <Link className="link-in-text" to={`/users/${e.by.userId}`}>
                      {e.by.userName ?? e.by.userId}
                    </Link>
                  ) : (
                    <span>{isMessageKey(byKind) ? t(byKind) : e.by.kind}</span>
                  )}{' '}
                  <Badge>{e.by.via}</Badge>
                  {e.by.apiKeyName ? <div className="muted small">{t('audit.withKey', { name: e.by.apiKeyName })}</div> : null}
                </td>
                <td data-label={t('audit.target')}>
                  <span className="muted small">{targetTypeText(e.target.type)}</span>{' '}
                  {href ? (
                    <Link className="link-in-text" to={href}>
                      {label}
                    </Link>
                  ) : (
                    <span>{label}</span>
                  )}
                </td>
                <td data-label={t('audit.changes')}>
                  {changes.length ? (
                    <ul className="change-list">
                      {changes.map((c) => (
                        <li key={c.field}>
                          {fieldText(c.field)}: <ChangeValue field={c.field} value={c.fromValue} shown={c.from} targetType={e.target.type} /> →{' '}
                          <ChangeValue field={c.field} value={c.toValue} shown={c.to} targetType={e.target.type} />
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <span className="muted">–</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The latest entries about (or by) one user or role, and the link to all of them on the Activity page. */
export function ActivitySection({ filter, title }: { filter: { targetId?: string; byUserId?: string; aboutUserId?: string }; title: string }) {
  const { t } = useI18n();
  const context = useMemo(() => auditContext, []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: AuditLogDocument, variables: { ...filter, limit: 10 }, context });
  const all = <Link to={withQuery('/activity', filter)}>{t('audit.seeAll')}</Link>;
  if (error && !data) return <ErrorAlert error={error} onRetry={() => refetch({ requestPolicy: 'network-only' })} />;
  if (!data) return fetching ? <Loading /> : null;
  if (data.auditLog.data.length === 0) return <EmptyState>{t('audit.empty')}</EmptyState>;
  return (
    <div className="stack">
      <ActivityTable entries={data.auditLog.data} caption={title} />
      <p>{all}</p>
    </div>
  );
}

/** What was done to this user (their keys included) and what this user did: two tabs over the same table. */
export function UserActivity({ userId }: { userId: string }) {
  const { t } = useI18n();
  const [tab, setTab] = useState<'about' | 'by'>('about');
  const tabs = [
    { id: 'about', label: t('audit.aboutUser') },
    { id: 'by', label: t('audit.byThisUser') },
  ] as const;
  return (
    <section className="card stack" aria-labelledby="activity-h">
      <h2 id="activity-h">{t('audit.title')}</h2>
      <div role="tablist" aria-label={t('audit.title')} className="tabs">
        {tabs.map((x) => (
          <button
            key={x.id}
            type="button"
            role="tab"
            id={`activity-tab-${x.id}`}
            aria-selected={tab === x.id}
            aria-controls="activity-panel"
            className={`btn btn-ghost${tab === x.id ? ' active' : ''}`}
            onClick={() => setTab(x.id)}
          >
            {x.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="activity-panel" aria-labelledby={`activity-tab-${tab}`}>
        <ActivitySection
          key={tab}
          title={tab === 'about' ? t('audit.aboutUser') : t('audit.byThisUser')}
          filter={tab === 'about' ? { aboutUserId: userId } : { byUserId: userId }}
        />
      </div>
    </section>
  );
}
