// One user: profile edit, roles, deactivation, a new password (humans) and API keys (agents).
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../gql/index.js';
import type { UserQuery } from '../gql/graphql.js';
import { useI18n } from '../i18n/index.js';
import type { MessageKey } from '../i18n/en.js';
import { errorCode } from '../lib/errors.js';
import { fieldMessage } from '../lib/refusals.js';
import { Link } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { useTitle } from '../lib/use-title.js';
import { ApiKeys } from '../components/api-keys.js';
import { ActorField } from '../components/pickers.js';
import { RolePicker } from '../components/role-picker.js';
import { Alert, Badge, Button, ConfirmDialog, EmptyState, ErrorAlert, Field, Loading, PageHeader } from '../components/ui.js';

const UserDocument = graphql(`
  query User($id: ID!) {
    user(id: $id) {
      id type email name status linkedActorId createdAt updatedAt
      linkedActor { id name }
      roles { id code name }
    }
  }
`);
const UpdateUserDocument = graphql(`
  mutation UpdateUser($id: ID!, $input: UpdateUserInput!) {
    updateUser(id: $id, input: $input) { id name email linkedActorId }
  }
`);
const SetRolesDocument = graphql(`
  mutation SetUserRoles($id: ID!, $roleIds: [ID!]!) {
    setUserRoles(id: $id, roleIds: $roleIds) { id roles { id } }
  }
`);
const DeactivateDocument = graphql(`
  mutation DeactivateUser($id: ID!) {
    deactivateUser(id: $id) { id status }
  }
`);
const ResetPasswordDocument = graphql(`
  mutation ResetUserPassword($id: ID!, $password: String!) {
    resetUserPassword(id: $id, password: $password)
  }
`);

type User = NonNullable<UserQuery['user']>;

export function UserDetailPage({ id }: { id: string }) {
  const { t } = useI18n();
  const { can, me } = useSession();
  const [{ data, error, fetching }, refetch] = useQuery({ query: UserDocument, variables: { id } });
  useTitle(data?.user?.name ?? t('users.title'));
  const back = <Link to="/users" className="btn btn-ghost">← {t('users.back')}</Link>;
  if (error && !data?.user) {
    if (errorCode(error) === 'NOT_FOUND') return <EmptyState action={back}>{t('common.notFound')}</EmptyState>;
    return <ErrorAlert error={error} onRetry={() => refetch({ requestPolicy: 'network-only' })} />;
  }
  if (!data?.user) return fetching ? <Loading /> : null;
  const user = data.user;
  const active = user.status === 'active';
  const writable = can('users:write') && active;
  return (
    <>
      <PageHeader title={user.name} actions={back}>
        <div className="header-meta">
          <Badge tone={user.type === 'agent' ? 'purple' : 'neutral'}>{t(`users.type.${user.type}` as MessageKey)}</Badge>
          <Badge tone={active ? 'green' : 'grey'}>{t(`users.status.${user.status}` as MessageKey)}</Badge>
          <span className="muted">{user.email}</span>
        </div>
      </PageHeader>
      <div className="detail-grid">
        <section className="card" aria-labelledby="profile-h">
          <h2 id="profile-h">{t('users.profile')}</h2>
          <ProfileForm user={user} writable={writable} />
          {writable && user.type === 'human' ? <ResetPassword id={user.id} /> : null}
          {writable && user.id !== me.user.id ? <Deactivate user={user} /> : null}
        </section>
        <section className="card" aria-labelledby="roles-h">
          <h2 id="roles-h">{t('users.roles')}</h2>
          <UserRoles user={user} writable={writable && can('roles:read')} />
        </section>
      </div>
      {user.type === 'agent' ? (
        <section className="card" aria-labelledby="keys-h">
          <h2 id="keys-h">{t('keys.title')}</h2>
          <ApiKeys userId={user.id} userName={user.name} canWrite={writable} />
        </section>
      ) : null}
    </>
  );
}

function ProfileForm({ user, writable }: { user: User; writable: boolean }) {
  const { t } = useI18n();
  const [name, setName] = useState(user.name);
  const [email, setEmail] = useState(user.email);
  const [linkedActorId, setLinked] = useState(user.linkedActorId ?? '');
  const [{ fetching, error, data }, update] = useMutation(UpdateUserDocument);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const input = user.type === 'agent' ? { name, email, linkedActorId: linkedActorId || null } : { name, email };
    await update({ id: user.id, input });
  };
  return (
    <form className="stack" onSubmit={submit}>
      {error ? <ErrorAlert error={error} /> : data && !fetching ? <Alert kind="success">{t('tension.saved')}</Alert> : null}
      <Field label={t('common.name')} error={fieldMessage(t, error, 'name')}>
        {(p) => <input {...p} name="name" required value={name} onChange={(e) => setName(e.target.value)} readOnly={!writable} />}
      </Field>
      <Field label={t('common.email')} error={fieldMessage(t, error, 'email')}>
        {(p) => <input {...p} name="email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} readOnly={!writable} />}
      </Field>
      {user.type === 'agent' ? (
        writable ? (
          <ActorField label={t('users.linkedActor')} optional type="agent" noneLabel={t('common.none')} error={fieldMessage(t, error, 'linkedActorId')} value={linkedActorId} valueLabel={linkedActorId === (user.linkedActorId ?? '') ? user.linkedActor?.name : undefined} onChange={setLinked} />
        ) : (
          <Field label={t('users.linkedActor')} optional>
            {(p) => <input {...p} readOnly value={user.linkedActor?.name ?? t('common.none')} />}
          </Field>
        )
      ) : null}
      {writable ? (
        <div className="form-actions">
          <Button type="submit" variant="primary" disabled={fetching}>{t('common.save')}</Button>
        </div>
      ) : null}
    </form>
  );
}

function UserRoles({ user, writable }: { user: User; writable: boolean }) {
  const { t } = useI18n();
  const [roleIds, setRoleIds] = useState(user.roles.map((r) => r.id));
  const [{ fetching, error, data }, setRoles] = useMutation(SetRolesDocument);
  if (!writable) {
    return user.roles.length ? (
      <ul className="tag-list">{user.roles.map((r) => <li key={r.id}><Badge>{r.name}</Badge></li>)}</ul>
    ) : (
      <p className="muted">{t('common.none')}</p>
    );
  }
  return (
    <form
      className="stack"
      onSubmit={async (e) => {
        e.preventDefault();
        const r = await setRoles({ id: user.id, roleIds }, { additionalTypenames: ['User', 'Me'] });
        // refused (the last administrator, a role beyond the caller's own): the boxes show what is still saved
        if (r.error) setRoleIds(user.roles.map((role) => role.id));
      }}
    >
      {error ? <ErrorAlert error={error} /> : data && !fetching ? <Alert kind="success">{t('users.rolesSaved')}</Alert> : null}
      <RolePicker legend={t('users.roles')} hideLegend value={roleIds} onChange={setRoleIds} />
      <div className="form-actions">
        <Button type="submit" variant="primary" disabled={fetching}>{t('users.saveRoles')}</Button>
      </div>
    </form>
  );
}

function ResetPassword({ id }: { id: string }) {
  const { t } = useI18n();
  const [password, setPassword] = useState('');
  const [{ fetching, error, data }, reset] = useMutation(ResetPasswordDocument);
  return (
    <form
      className="stack section-split"
      onSubmit={async (e) => {
        e.preventDefault();
        const r = await reset({ id, password });
        if (!r.error) setPassword('');
      }}
    >
      <h3>{t('users.resetPassword')}</h3>
      {error ? <ErrorAlert error={error} /> : data && !fetching ? <Alert kind="success">{t('users.passwordSet')}</Alert> : null}
      <Field label={t('users.password')} hint={t('users.passwordHint')} error={fieldMessage(t, error, 'password')}>
        {(p) => <input {...p} name="newPassword" type="password" autoComplete="new-password" required minLength={12} maxLength={256} value={password} onChange={(e) => setPassword(e.target.value)} />}
      </Field>
      <div className="form-actions">
        <Button type="submit" disabled={fetching}>{t('users.resetPassword')}</Button>
      </div>
    </form>
  );
}

function Deactivate({ user }: { user: User }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const [{ fetching, error }, deactivate] = useMutation(DeactivateDocument);
  return (
    <div className="section-split">
      <Button variant="danger" onClick={() => setOpen(true)}>{t('users.deactivate')}</Button>
      <ConfirmDialog
        open={open}
        title={t('users.deactivate.title', { name: user.name })}
        body={t('users.deactivate.body')}
        confirmLabel={t('users.deactivate')}
        busy={fetching}
        error={error}
        onClose={() => setOpen(false)}
        onConfirm={async () => {
          const r = await deactivate({ id: user.id }, { additionalTypenames: ['User', 'ApiKey'] });
          if (!r.error) setOpen(false);
        }}
      />
    </div>
  );
}
