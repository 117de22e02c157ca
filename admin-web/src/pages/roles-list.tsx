// Roles: each with its own and effective permissions; the system role is marked.
import { useMemo } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { Link } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { usePager, useUrlFilters } from '../lib/use-pager.js';
import { ListPaging, limitParam, pageSize } from '../components/list-footer.js';
import { useTitle } from '../lib/use-title.js';
import { Badge, PageHeader, ListStates } from '../components/ui.js';

const RolesDocument = graphql(`
  query Roles($limit: Int, $cursor: String) {
    roles(limit: $limit, cursor: $cursor) {
      data { id code name permissions inherits system effectivePermissions }
      nextCursor
    }
    rolesTotal { count exact }
  }
`);

export function RolesPage() {
  const { t } = useI18n();
  useTitle(t('roles.title'));
  const { can } = useSession();
  const pager = usePager();
  const [filters, setFilters] = useUrlFilters(['limit'] as const);
  const limit = pageSize(filters.limit);
  const context = useMemo(() => ({ additionalTypenames: ['Role'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: RolesDocument, variables: { limit, cursor: pager.cursor }, context });
  const names = new Map((data?.roles.data ?? []).map((r) => [r.id, r.name]));
  return (
    <>
      <PageHeader
        title={t('roles.title')}
        actions={
          can('roles:write') ? (
            <Link to="/roles/new" className="btn btn-primary">
              + {t('roles.new')}
            </Link>
          ) : null
        }
      />
      <ListStates data={data} error={error} fetching={fetching} refetch={refetch} empty={(data) => (data.roles.data.length === 0 ? t('roles.empty') : null)}>
        {(data) => (
          <>
            <div className="table-wrap card">
              <table className="table">
                <caption className="visually-hidden">{t('roles.title')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('common.name')}</th>
                    <th scope="col">{t('roles.code')}</th>
                    <th scope="col">{t('roles.inherits')}</th>
                    <th scope="col">{t('roles.effective')}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.roles.data.map((r) => (
                    <tr key={r.id}>
                      <td>
                        <Link to={`/roles/${r.id}`} className="row-link">
                          {r.name}
                        </Link>{' '}
                        {r.system ? <Badge tone="blue">{t('roles.system')}</Badge> : null}
                      </td>
                      <td data-label={t('roles.code')}>
                        <code>{r.code}</code>
                      </td>
                      <td data-label={t('roles.inherits')}>{r.inherits.map((id) => names.get(id) ?? id).join(', ') || <span className="muted">—</span>}</td>
                      <td data-label={t('roles.effective')}>
                        {r.permissions.includes('*') ? (
                          <Badge tone="purple">{t('roles.wildcard')}</Badge>
                        ) : r.effectivePermissions.length ? (
                          <ul className="tag-list">
                            {r.effectivePermissions.map((p) => (
                              <li key={p}>
                                <code className="perm">{p}</code>
                              </li>
                            ))}
                          </ul>
                        ) : (
                          <span className="muted">{t('roles.noPermissions')}</span>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <ListPaging
              pager={pager}
              nextCursor={data.roles.nextCursor}
              limit={limit}
              shown={data.roles.data.length}
              total={data.rolesTotal}
              onPageSize={(n) => setFilters({ limit: limitParam(n) })}
            />
          </>
        )}
      </ListStates>
    </>
  );
}
