// Users: list with type/status filters and search, and creating a human (password) or an agent (none).
import { ListPaging, limitParam, pageSize } from '../components/list-footer.js';
import { asUserStatus, asUserType } from '../lib/enums';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import type { MessageKey } from '../i18n/en.js';
import { fieldMessage } from '../lib/refusals.js';
import { Link, useRouter } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { usePager, useUrlFilters } from '../lib/use-pager.js';
import { useTitle } from '../lib/use-title.js';
import { ActorField } from '../components/pickers.js';
import { RolePicker } from '../components/role-picker.js';
import { ExportLinks } from '../components/export-links.js';
import { UserBulkBar } from '../components/bulk-users.js';
import type { BulkItem } from '../components/bulk-actions.js';
import { Badge, Button, Dialog, ErrorAlert, Field, PageHeader, SearchField, ListStates } from '../components/ui.js';

const UsersDocument = graphql(`
  query Users($type: UserType, $status: UserStatus, $q: String, $limit: Int, $cursor: String) {
    users(type: $type, status: $status, q: $q, limit: $limit, cursor: $cursor) {
      data { id type email name status roles { id name } linkedActor { id name } }
      nextCursor
    }
    usersTotal(type: $type, status: $status, q: $q) { count exact }
  }
`);
const CreateUserDocument = graphql(`
  mutation CreateUser($input: CreateUserInput!) {
    createUser(input: $input) { id }
  }
`);

export function UsersPage() {
  const { t } = useI18n();
  useTitle(t('users.title'));
  const { can } = useSession();
  const pager = usePager();
  const [filters, setFilters] = useUrlFilters(['type', 'status', 'q', 'limit'] as const);
  const { type, status, q: search } = filters;
  const limit = pageSize(filters.limit);
  // the search box follows the URL (Back, a cleared filter) but keeps what is being typed
  const [q, setQ] = useState(search);
  const [searched, setSearched] = useState(search);
  if (searched !== search) {
    setSearched(search);
    setQ(search);
  }
  const [creating, setCreating] = useState(false);
  const context = useMemo(() => ({ additionalTypenames: ['User'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({
    query: UsersDocument,
    variables: { type: asUserType(type), status: asUserStatus(status), q: search || null, limit, cursor: pager.cursor },
    context,
  });
  const rows = data?.users.data ?? [];
  // bulk deactivation (issue 36): active users of this page
  const bulk = can('users:write');
  const [selected, setSelected] = useState<Map<string, BulkItem>>(new Map());
  const selectable: BulkItem[] = rows.filter((u) => u.status === 'active').map((u) => ({ id: u.id, name: u.name, href: `/users/${u.id}` }));
  const pageSelected = selectable.length > 0 && selectable.every((u) => selected.has(u.id));
  const toggle = (items: BulkItem[], on: boolean) =>
    setSelected((prev) => {
      const next = new Map(prev);
      for (const i of items) {
        if (on) next.set(i.id, i);
        else next.delete(i.id);
      }
      return next;
    });
  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    setFilters({ q: q.trim() });
  };
  return (
    <>
      <PageHeader
        title={t('users.title')}
        actions={
          <>
            <ExportLinks list="users" permission="users:read" filters={{ type, status, q: search }} />
            {can('users:write') ? (
              <Button variant="primary" onClick={() => setCreating(true)}>
                + {t('users.new')}
              </Button>
            ) : null}
          </>
        }
      />
      <form noValidate className="filters card" role="search" aria-label={t('common.filters')} onSubmit={onSearch}>
        <SearchField label={t('common.search')} value={q} onChange={setQ} />
        <Field label={t('common.type')}>
          {(p) => (
            <select {...p} name="type" value={type} onChange={(e) => setFilters({ type: e.target.value })}>
              <option value="">{t('common.any')}</option>
              <option value="human">{t('users.type.human')}</option>
              <option value="agent">{t('users.type.agent')}</option>
            </select>
          )}
        </Field>
        <Field label={t('common.status')}>
          {(p) => (
            <select {...p} name="status" value={status} onChange={(e) => setFilters({ status: e.target.value })}>
              <option value="">{t('common.any')}</option>
              <option value="active">{t('users.status.active')}</option>
              <option value="deactivated">{t('users.status.deactivated')}</option>
            </select>
          )}
        </Field>
      </form>
      <ListStates
        data={data}
        error={error}
        fetching={fetching}
        refetch={refetch}
        empty={() => (rows.length === 0 && pager.page === 1 ? t('users.empty') : null)}
      >
        {(data) => (
          <>
            {bulk ? (
              <UserBulkBar
                selected={[...selected.values()]}
                onClear={() => setSelected(new Map())}
                onDone={() => {
                  setSelected(new Map());
                  refetch({ requestPolicy: 'network-only' });
                }}
              />
            ) : null}
            <div className="table-wrap card">
              <table className="table">
                <caption className="visually-hidden">{t('users.title')}</caption>
                <thead>
                  <tr>
                    {bulk ? (
                      <th scope="col" className="select-cell">
                        <input
                          type="checkbox"
                          aria-label={t('bulk.selectPage')}
                          checked={pageSelected}
                          disabled={selectable.length === 0}
                          onChange={(e) => toggle(selectable, e.target.checked)}
                        />
                      </th>
                    ) : null}
                    <th scope="col">{t('common.name')}</th>
                    <th scope="col">{t('common.email')}</th>
                    <th scope="col">{t('common.type')}</th>
                    <th scope="col">{t('users.roles')}</th>
                    <th scope="col">{t('common.status')}</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((u) => (
                    <tr key={u.id} className={u.status === 'deactivated' ? 'row-muted' : undefined}>
                      {bulk ? (
                        <td className="select-cell">
                          {u.status === 'active' ? (
                            <input
                              type="checkbox"
                              aria-label={t('bulk.selectRow', { name: u.name })}
                              checked={selected.has(u.id)}
                              onChange={(e) => toggle([{ id: u.id, name: u.name, href: `/users/${u.id}` }], e.target.checked)}
                            />
                          ) : null}
                        </td>
                      ) : null}
                      <td>
                        <Link to={`/users/${u.id}`} className="row-link">
                          {u.name}
                        </Link>
                      </td>
                      <td data-label={t('common.email')}>{u.email}</td>
                      <td data-label={t('common.type')}>
                        <Badge tone={u.type === 'agent' ? 'purple' : 'neutral'}>{t(`users.type.${u.type}` as MessageKey)}</Badge>
                      </td>
                      <td data-label={t('users.roles')}>{u.roles.map((r) => r.name).join(', ') || <span className="muted">{t('common.none')}</span>}</td>
                      <td data-label={t('common.status')}>
                        <Badge tone={u.status === 'active' ? 'green' : 'grey'}>{t(`users.status.${u.status}` as MessageKey)}</Badge>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <ListPaging
              pager={pager}
              nextCursor={data.users.nextCursor}
              limit={limit}
              shown={rows.length}
              total={data.usersTotal}
              onPageSize={(n) => setFilters({ limit: limitParam(n) })}
            />
          </>
        )}
      </ListStates>
      {creating ? <CreateUserDialog onClose={() => setCreating(false)} /> : null}
    </>
  );
}

function CreateUserDialog({ onClose }: { onClose: () => void }) {
  const { t } = useI18n();
  const { can } = useSession();
  const { navigate } = useRouter();
  const [type, setType] = useState<'human' | 'agent'>('human');
  const [form, setForm] = useState({ email: '', name: '', password: '', linkedActorId: '' });
  const [roleIds, setRoleIds] = useState<string[]>([]);
  const [{ fetching, error }, create] = useMutation(CreateUserDocument);
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const input =
      type === 'human'
        ? { type, email: form.email, name: form.name, password: form.password, roleIds }
        : { type, email: form.email, name: form.name, linkedActorId: form.linkedActorId || null, roleIds };
    const r = await create({ input }, { additionalTypenames: ['User'] });
    if (r.data?.createUser.id) navigate(`/users/${r.data.createUser.id}`);
  };
  return (
    <Dialog title={t('users.create.title')} open onClose={onClose}>
      <form noValidate className="stack" onSubmit={submit}>
        {error ? <ErrorAlert error={error} /> : null}
        <fieldset className="segmented">
          <legend>{t('common.type')}</legend>
          {(['human', 'agent'] as const).map((ty) => (
            <label key={ty} className={type === ty ? 'active' : undefined}>
              <input type="radio" name="userType" value={ty} checked={type === ty} onChange={() => setType(ty)} />
              {t(`users.type.${ty}`)}
            </label>
          ))}
        </fieldset>
        <Field label={t('common.name')} error={fieldMessage(t, error, 'name')}>
          {(p) => <input {...p} name="name" required value={form.name} onChange={set('name')} autoFocus />}
        </Field>
        <Field label={t('common.email')} error={fieldMessage(t, error, 'email')}>
          {(p) => <input {...p} name="email" type="email" required value={form.email} onChange={set('email')} />}
        </Field>
        {type === 'human' ? (
          <Field label={t('users.password')} hint={t('users.passwordHint')} error={fieldMessage(t, error, 'password')}>
            {(p) => (
              <input
                {...p}
                name="password"
                type="password"
                autoComplete="new-password"
                required
                minLength={12}
                maxLength={256}
                value={form.password}
                onChange={set('password')}
              />
            )}
          </Field>
        ) : (
          <>
            <p className="muted small">{t('users.agentNoPassword')}</p>
            <ActorField
              label={t('users.linkedActor')}
              optional
              type="agent"
              noneLabel={t('common.none')}
              error={fieldMessage(t, error, 'linkedActorId')}
              value={form.linkedActorId}
              onChange={(linkedActorId) => setForm((f) => ({ ...f, linkedActorId }))}
            />
          </>
        )}
        {can('roles:read') ? <RolePicker legend={t('users.roles')} value={roleIds} onChange={setRoleIds} /> : null}
        <div className="dialog-footer">
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="submit" variant="primary" disabled={fetching}>
            {t('common.create')}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
