// Create or edit a role: permissions from the catalogue, inherited roles, and the effective result.
import { useState, type FormEvent } from 'react';
import { useClient, useMutation, useQuery } from 'urql';
import { graphql } from '../gql/index.js';
import type { RoleQuery } from '../gql/graphql.js';
import { useI18n } from '../i18n/index.js';
import { errorCode } from '../lib/errors.js';
import { fieldMessage } from '../lib/refusals.js';
import { expand, PermissionCatalogueDocument } from '../lib/permissions.js';
import { Link, useRouter, useUnsavedChanges } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { useTitle } from '../lib/use-title.js';
import { ActivitySection } from '../components/activity.js';
import { RolePicker, inheritorsOf, useRoleOptions } from '../components/role-picker.js';
import { Alert, Badge, Button, ConfirmDialog, EmptyState, ErrorAlert, Field, Loading, PageHeader, RetryingNotice } from '../components/ui.js';
import { ConflictDialog } from '../components/conflict-dialog.js';
import { useKeptQuery } from '../lib/use-kept-query.js';

const RoleDocument = graphql(`
  query Role($id: ID!) {
    role(id: $id) { id code name permissions inherits system effectivePermissions version }
  }
`);
const CreateRoleDocument = graphql(`
  mutation CreateRole($input: CreateRoleInput!) {
    createRole(input: $input) { id }
  }
`);
const UpdateRoleDocument = graphql(`
  mutation UpdateRole($id: ID!, $input: UpdateRoleInput!) {
    updateRole(id: $id, input: $input) { id code name permissions inherits system effectivePermissions version }
  }
`);
const DeleteRoleDocument = graphql(`
  mutation DeleteRole($id: ID!) {
    deleteRole(id: $id)
  }
`);

type Role = NonNullable<RoleQuery['role']>;

export function RoleEditPage({ id }: { id: string | null }) {
  const { t } = useI18n();
  // a failed refetch keeps the form and what is typed in it, with a notice, and retries by itself
  const [{ data, error, fetching, retrying }, refetch] = useKeptQuery({ query: RoleDocument, variables: { id: id ?? '' }, pause: id === null });
  const [catalogue] = useQuery({ query: PermissionCatalogueDocument });
  useTitle(id ? (data?.role?.name ?? t('roles.title')) : t('roles.create.title'));
  const back = (
    <Link to="/roles" className="btn btn-ghost">
      ← {t('roles.title')}
    </Link>
  );
  if (id && error && !data?.role) {
    if (errorCode(error) === 'NOT_FOUND') return <EmptyState action={back}>{t('common.notFound')}</EmptyState>;
    return <ErrorAlert error={error} onRetry={() => refetch({ requestPolicy: 'network-only' })} />;
  }
  if ((id && !data?.role) || !catalogue.data) {
    if (catalogue.error) return <ErrorAlert error={catalogue.error} />;
    return fetching || catalogue.fetching ? <Loading /> : null;
  }
  return (
    <>
      <RetryingNotice error={retrying} />
      <RoleForm key={data?.role?.id ?? 'new'} role={data?.role ?? null} catalogue={catalogue.data.permissions} />
    </>
  );
}

function RoleForm({ role, catalogue }: { role: Role | null; catalogue: string[] }) {
  const { t } = useI18n();
  const { can } = useSession();
  const { navigate } = useRouter();
  const roles = useRoleOptions();
  const readOnly = !can('roles:write') || Boolean(role?.system);
  const [code, setCode] = useState(role?.code ?? '');
  const [name, setName] = useState(role?.name ?? '');
  const [permissions, setPermissions] = useState<string[]>(role?.permissions ?? []);
  const [inherits, setInherits] = useState<string[]>(role?.inherits ?? []);
  const [deleting, setDeleting] = useState(false);
  // what is saved as far as this form knows (opened on, saved last, or taken from a conflict): leaving with
  // anything else typed asks first
  const snapshot = (v: { code: string; name: string; permissions: string[]; inherits: string[] }) =>
    JSON.stringify([v.code, v.name, [...v.permissions].sort(), [...v.inherits].sort()]);
  const [baseline, setBaseline] = useState(() =>
    snapshot({ code: role?.code ?? '', name: role?.name ?? '', permissions: role?.permissions ?? [], inherits: role?.inherits ?? [] }),
  );
  useUnsavedChanges(!readOnly && snapshot({ code, name, permissions, inherits }) !== baseline, t('common.unsavedLeave'));
  const [createState, create] = useMutation(CreateRoleDocument);
  const [updateState, update] = useMutation(UpdateRoleDocument);
  const [deleteState, deleteRole] = useMutation(DeleteRoleDocument);
  const client = useClient();
  // the version this edit is based on: the one the form opened on, the one saved last, or the one a conflict showed
  const [version, setVersion] = useState(role?.version);
  // a save refused with version_conflict: the role as saved now, shown beside what was typed
  const [conflict, setConflict] = useState<Role | null>(null);
  const failed = createState.error ?? updateState.error;
  // a conflict is shown in the conflict dialog, not as an error
  const error = errorCode(failed) === 'VERSION_CONFLICT' ? undefined : failed;
  const saved = Boolean(updateState.data) && !updateState.fetching && !updateState.error;
  const names = (ids: string[]) =>
    ids
      .map((id) => roles.find((r) => r.id === id)?.name ?? id)
      .sort()
      .join(', ');
  const conflictRows = (theirs: Role) => [
    { label: t('common.name'), theirs: theirs.name, mine: name },
    { label: t('roles.code'), theirs: theirs.code, mine: code },
    { label: t('roles.permissions'), theirs: [...theirs.permissions].sort().join(', '), mine: [...permissions].sort().join(', ') },
    { label: t('roles.inherits'), theirs: names(theirs.inherits), mine: names(inherits) },
  ];
  const keepTheirs = (theirs: Role) => {
    setName(theirs.name);
    setCode(theirs.code);
    setPermissions(theirs.permissions);
    setInherits(theirs.inherits);
    setVersion(theirs.version);
    setBaseline(snapshot(theirs));
    setConflict(null);
  };

  // grants outside the catalogue (wildcards like `*` or `tensions:*`) stay listed so they can be kept or removed
  const extra = permissions.filter((p) => !catalogue.includes(p));
  const inheritedEffective = roles.filter((r) => inherits.includes(r.id)).flatMap((r) => r.effectivePermissions);
  const effective = expand([...permissions, ...inheritedEffective], catalogue);

  const cycle = role ? inheritorsOf(role.id, roles) : [];
  const inheritedBy = roles.filter((r) => r.id !== role?.id && r.inherits.includes(role?.id ?? '')).map((r) => r.name);
  const toggle = (p: string, on: boolean) => setPermissions((ps) => (on ? [...ps, p] : ps.filter((x) => x !== p)));
  const save = async (expectedVersion: number | undefined) => {
    if (role) {
      const r = await update({ id: role.id, input: { code, name, permissions, inherits, expectedVersion } }, { additionalTypenames: ['Role', 'User', 'Me'] });
      if (r.data) {
        setVersion(r.data.updateRole.version);
        setBaseline(snapshot({ code, name, permissions, inherits }));
      }
      // someone else saved meanwhile: keep what was typed, show it beside what is saved now
      setConflict(
        errorCode(r.error) === 'VERSION_CONFLICT'
          ? ((await client.query(RoleDocument, { id: role.id }, { requestPolicy: 'network-only' }).toPromise()).data?.role ?? null)
          : null,
      );
      // refused because it would strip the last administrator: show what is still saved, not what was tried
      if (errorCode(r.error) === 'LAST_ADMIN') {
        setPermissions(role.permissions);
        setInherits(role.inherits);
      }
    } else {
      const r = await create({ input: { code, name, permissions, inherits } }, { additionalTypenames: ['Role'] });
      if (r.data?.createRole.id) navigate(`/roles/${r.data.createRole.id}`, { replace: true });
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(version);
  };

  return (
    <>
      <PageHeader title={role ? role.name : t('roles.create.title')} trail={[{ to: '/roles', label: t('nav.roles') }]}>
        {role?.system ? (
          <div className="header-meta">
            <Badge tone="blue">{t('roles.system')}</Badge>
          </div>
        ) : null}
      </PageHeader>
      {role?.system ? <Alert kind="info">{t('roles.systemProtected')}</Alert> : null}
      <form noValidate className="detail-grid" onSubmit={submit}>
        <section className="card stack" aria-labelledby="role-h">
          <h2 id="role-h">{role ? t('roles.edit.title') : t('roles.create.title')}</h2>
          {error ? <ErrorAlert error={error} /> : saved ? <Alert kind="success">{t('roles.saved')}</Alert> : null}
          <Field label={t('common.name')} error={fieldMessage(t, error, 'name')}>
            {(p) => <input {...p} name="name" required value={name} onChange={(e) => setName(e.target.value)} readOnly={readOnly} />}
          </Field>
          <Field label={t('roles.code')} error={fieldMessage(t, error, 'code')}>
            {(p) => <input {...p} name="code" required value={code} onChange={(e) => setCode(e.target.value)} readOnly={readOnly} className="mono" />}
          </Field>
          <fieldset className="checks checks-grid" disabled={readOnly}>
            <legend>{t('roles.permissions')}</legend>
            {[...extra, ...catalogue].map((p) => (
              <label key={p} className="check">
                <input type="checkbox" name="permission" value={p} checked={permissions.includes(p)} onChange={(e) => toggle(p, e.target.checked)} />
                <code className="perm">{p}</code>
              </label>
            ))}
          </fieldset>
          <RolePicker legend={t('roles.inherits')} value={inherits} onChange={setInherits} exclude={cycle} disabled={readOnly} />
          {cycle.length > 1 && !readOnly ? <p className="field-hint">{t('roles.inheritsCycle')}</p> : null}
          {fieldMessage(t, error, 'inherits') ? <p className="field-error">{fieldMessage(t, error, 'inherits')}</p> : null}
          {readOnly ? null : (
            <div className="form-actions">
              <Button type="submit" variant="primary" disabled={createState.fetching || updateState.fetching}>
                {role ? t('common.save') : t('common.create')}
              </Button>
              {role ? (
                <Button variant="danger" onClick={() => setDeleting(true)}>
                  {t('common.delete')}
                </Button>
              ) : null}
            </div>
          )}
        </section>
        <section className="card" aria-labelledby="effective-h">
          <h2 id="effective-h">{t('roles.effective')}</h2>
          {effective.length ? (
            <ul className="perm-list" data-testid="effective-permissions">
              {effective.map((p) => (
                <li key={p}>
                  <code className="perm">{p}</code>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">{t('roles.noPermissions')}</p>
          )}
        </section>
      </form>
      {conflict ? (
        <ConflictDialog
          rows={conflictRows(conflict)}
          busy={updateState.fetching}
          onBack={() => setConflict(null)}
          onKeepTheirs={() => keepTheirs(conflict)}
          onApplyMine={() => void save(conflict.version)}
        />
      ) : null}
      {role && can('audit:read') ? (
        <section className="card" aria-labelledby="activity-h">
          <h2 id="activity-h">{t('audit.title')}</h2>
          <ActivitySection title={t('audit.title')} filter={{ targetId: role.id }} />
        </section>
      ) : null}
      {role ? (
        <ConfirmDialog
          open={deleting}
          title={t('roles.delete.title', { name: role.name })}
          body={
            <>
              {t('roles.delete.body')} {t('roles.delete.rule')}
              {inheritedBy.length ? <strong className="block-note">{t('roles.delete.inheritedBy', { names: inheritedBy.join(', ') })}</strong> : null}
            </>
          }
          confirmLabel={t('common.delete')}
          blocked={inheritedBy.length > 0}
          busy={deleteState.fetching}
          error={deleteState.error}
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            const r = await deleteRole({ id: role.id }, { additionalTypenames: ['Role', 'User'] });
            if (!r.error) navigate('/roles', { force: true });
          }}
        />
      ) : null}
    </>
  );
}
