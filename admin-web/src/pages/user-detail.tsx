// One user: profile edit, roles, deactivation, a new password (humans) and API keys (agents).
import { useState, type FormEvent } from 'react';
import { useClient, useMutation, type CombinedError } from 'urql';
import { graphql } from '../gql/index.js';
import type { UserQuery } from '../gql/graphql.js';
import { useI18n } from '../i18n/index.js';
import type { MessageKey } from '../i18n/en.js';
import { errorCode } from '../lib/errors.js';
import { fieldMessage } from '../lib/refusals.js';
import { Link } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { useTitle } from '../lib/use-title.js';
import { UserActivity } from '../components/activity.js';
import { ApiKeys } from '../components/api-keys.js';
import { ConnectedApps } from '../components/connected-apps.js';
import { ActorField } from '../components/pickers.js';
import { RolePicker, useRoleOptions } from '../components/role-picker.js';
import { ConflictDialog } from '../components/conflict-dialog.js';
import { useKeptQuery } from '../lib/use-kept-query.js';
import { Alert, Badge, Button, ConfirmDialog, EmptyState, ErrorAlert, Field, Loading, PageHeader, RetryingNotice } from '../components/ui.js';

const UserDocument = graphql(`
  query User($id: ID!) {
    user(id: $id) {
      id type email name status linkedActorId createdAt updatedAt version
      linkedActor { id name }
      roles { id code name effectivePermissions }
    }
  }
`);
const UpdateUserDocument = graphql(`
  mutation UpdateUser($id: ID!, $input: UpdateUserInput!) {
    updateUser(id: $id, input: $input) { id name email linkedActorId version }
  }
`);
const SetRolesDocument = graphql(`
  mutation SetUserRoles($id: ID!, $roleIds: [ID!]!, $expectedVersion: Int) {
    setUserRoles(id: $id, roleIds: $roleIds, expectedVersion: $expectedVersion) { id version roles { id } }
  }
`);
const DeactivateDocument = graphql(`
  mutation DeactivateUser($id: ID!) {
    deactivateUser(id: $id) { id status }
  }
`);
const ReactivateDocument = graphql(`
  mutation ReactivateUser($id: ID!) {
    reactivateUser(id: $id) { id status version updatedAt }
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
  // a failed refetch keeps the page and what is typed in its forms, with a notice, and retries by itself
  const [{ data, error, fetching, retrying }, refetch] = useKeptQuery({ query: UserDocument, variables: { id } });
  useTitle(data?.user?.name ?? t('users.title'));
  const back = (
    <Link to="/users" className="btn btn-ghost">
      ← {t('users.back')}
    </Link>
  );
  if (error && !data?.user) {
    if (errorCode(error) === 'NOT_FOUND') return <EmptyState action={back}>{t('common.notFound')}</EmptyState>;
    return <ErrorAlert error={error} onRetry={() => refetch({ requestPolicy: 'network-only' })} />;
  }
  if (!data?.user) return fetching ? <Loading /> : null;
  return <UserDetail user={data.user} retrying={retrying} />;
}

function UserDetail({ user, retrying }: { user: User; retrying: CombinedError | null }) {
  const { t } = useI18n();
  const { can, me } = useSession();
  const client = useClient();
  // the version the profile and role edits are based on: the one the page opened on, the one saved last,
  // or the one a conflict showed (never one a refetch brought in meanwhile: that is someone else's change)
  const [based, setBased] = useState(user.version);
  const active = user.status === 'active';
  // said where the Deactivate button was, once it is gone (an inactive user is not writable)
  const [deactivatedNow, setDeactivatedNow] = useState(false);
  // SPEC §2: acting on a user needs every permission they hold; not offered (and said why) otherwise
  const beyondMe = [...new Set(user.roles.flatMap((r) => r.effectivePermissions))].filter((p) => !can(p));
  const writable = can('users:write') && active && beyondMe.length === 0;
  const versioned: Versioned = {
    version: based,
    onSaved: setBased,
    latest: async () => (await client.query(UserDocument, { id: user.id }, { requestPolicy: 'network-only' }).toPromise()).data?.user ?? null,
  };
  return (
    <>
      <RetryingNotice error={retrying} />
      <PageHeader title={user.name} trail={[{ to: '/users', label: t('nav.users') }]}>
        <div className="header-meta">
          <Badge tone={user.type === 'agent' ? 'purple' : 'neutral'}>{t(`users.type.${user.type}` as MessageKey)}</Badge>
          <Badge tone={active ? 'green' : 'grey'}>{t(`users.status.${user.status}` as MessageKey)}</Badge>
          <span className="muted">{user.email}</span>
        </div>
      </PageHeader>
      {can('users:write') && active && beyondMe.length ? <Alert kind="info">{t('users.beyondYou', { permissions: beyondMe.join(', ') })}</Alert> : null}
      <div className="detail-grid">
        <section className="card" aria-labelledby="profile-h">
          <h2 id="profile-h">{t('users.profile')}</h2>
          <ProfileForm user={user} writable={writable} versioned={versioned} />
          {writable && user.type === 'human' ? (
            <ResetPassword id={user.id} onReset={() => void versioned.latest().then((u) => u && u.version === based + 1 && setBased(u.version))} />
          ) : null}
          {writable && user.type === 'human' && user.id !== me.user.id ? <ResetSecondFactor user={user} /> : null}
          {writable && user.id !== me.user.id ? <Deactivate user={user} onDeactivated={() => setDeactivatedNow(true)} /> : null}
          {deactivatedNow && !active ? <Alert kind="success">{t('users.deactivated')}</Alert> : null}
          {!active && can('users:write') ? <Reactivate user={user} onReactivated={setBased} /> : null}
        </section>
        <section className="card" aria-labelledby="roles-h">
          <h2 id="roles-h">{t('users.roles')}</h2>
          <UserRoles user={user} writable={writable && can('roles:read')} versioned={versioned} />
        </section>
      </div>
      {user.type === 'agent' ? (
        <section className="card" aria-labelledby="keys-h">
          <h2 id="keys-h">{t('keys.title')}</h2>
          <ApiKeys userId={user.id} userName={user.name} userGrants={user.roles.flatMap((r) => r.effectivePermissions)} canWrite={writable} />
        </section>
      ) : (
        <section className="card" aria-labelledby="apps-h">
          <h2 id="apps-h">{t('apps.title')}</h2>
          <ConnectedApps userId={user.id} canWrite={writable} />
        </section>
      )}
      {can('audit:read') ? <UserActivity userId={user.id} /> : null}
    </>
  );
}

interface Versioned {
  version: number;
  onSaved: (version: number) => void;
  /** after a version conflict: the user as saved now */
  latest: () => Promise<User | null>;
}

function ProfileForm({ user, writable, versioned }: { user: User; writable: boolean; versioned: Versioned }) {
  const { t } = useI18n();
  const [name, setName] = useState(user.name);
  const [email, setEmail] = useState(user.email);
  const [linkedActorId, setLinked] = useState(user.linkedActorId ?? '');
  const [linkedName, setLinkedName] = useState(user.linkedActor?.name ?? '');
  const [{ fetching, error, data }, update] = useMutation(UpdateUserDocument);
  // a save refused with version_conflict: the user as saved now, shown beside what was typed
  const [conflict, setConflict] = useState<User | null>(null);
  const save = async (expectedVersion: number) => {
    const input = user.type === 'agent' ? { name, email, linkedActorId: linkedActorId || null, expectedVersion } : { name, email, expectedVersion };
    const r = await update({ id: user.id, input });
    if (r.data) versioned.onSaved(r.data.updateUser.version);
    setConflict(errorCode(r.error) === 'VERSION_CONFLICT' ? await versioned.latest() : null);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(versioned.version);
  };
  const keepTheirs = (theirs: User) => {
    setName(theirs.name);
    setEmail(theirs.email);
    setLinked(theirs.linkedActorId ?? '');
    setLinkedName(theirs.linkedActor?.name ?? '');
    versioned.onSaved(theirs.version);
    setConflict(null);
  };
  const rows = (theirs: User) => [
    { label: t('common.name'), theirs: theirs.name, mine: name },
    { label: t('common.email'), theirs: theirs.email, mine: email },
    ...(user.type === 'agent'
      ? [
          {
            label: t('users.linkedActor'),
            theirs: theirs.linkedActor?.name ?? t('common.none'),
            mine: linkedActorId ? linkedName || linkedActorId : t('common.none'),
          },
        ]
      : []),
  ];
  return (
    <form noValidate className="stack" onSubmit={submit}>
      {conflict ? (
        <ConflictDialog
          rows={rows(conflict)}
          busy={fetching}
          onBack={() => setConflict(null)}
          onKeepTheirs={() => keepTheirs(conflict)}
          onApplyMine={() => void save(conflict.version)}
        />
      ) : null}
      {error && errorCode(error) !== 'VERSION_CONFLICT' ? (
        <ErrorAlert error={error} />
      ) : data && !fetching && !error ? (
        <Alert kind="success">{t('tension.saved')}</Alert>
      ) : null}
      <Field label={t('common.name')} error={fieldMessage(t, error, 'name')}>
        {(p) => <input {...p} name="name" required value={name} onChange={(e) => setName(e.target.value)} readOnly={!writable} />}
      </Field>
      <Field label={t('common.email')} error={fieldMessage(t, error, 'email')}>
        {(p) => <input {...p} name="email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} readOnly={!writable} />}
      </Field>
      {user.type === 'agent' ? (
        writable ? (
          <ActorField
            label={t('users.linkedActor')}
            optional
            type="agent"
            noneLabel={t('common.none')}
            error={fieldMessage(t, error, 'linkedActorId')}
            value={linkedActorId}
            valueLabel={linkedActorId === (user.linkedActorId ?? '') ? user.linkedActor?.name : undefined}
            onChange={(v, n) => {
              setLinked(v);
              setLinkedName(n ?? '');
            }}
          />
        ) : (
          <Field label={t('users.linkedActor')} optional>
            {(p) => <input {...p} readOnly value={user.linkedActor?.name ?? t('common.none')} />}
          </Field>
        )
      ) : null}
      {writable ? (
        <div className="form-actions">
          <Button type="submit" variant="primary" disabled={fetching}>
            {t('common.save')}
          </Button>
        </div>
      ) : null}
    </form>
  );
}

function UserRoles({ user, writable, versioned }: { user: User; writable: boolean; versioned: Versioned }) {
  const { t } = useI18n();
  const [roleIds, setRoleIds] = useState(user.roles.map((r) => r.id));
  const [{ fetching, error, data }, setRoles] = useMutation(SetRolesDocument);
  const options = useRoleOptions();
  // a save refused with version_conflict: the user as saved now, its roles shown beside the ticked ones
  const [conflict, setConflict] = useState<User | null>(null);
  const save = async (expectedVersion: number) => {
    const r = await setRoles({ id: user.id, roleIds, expectedVersion }, { additionalTypenames: ['User', 'Me'] });
    if (r.data) versioned.onSaved(r.data.setUserRoles.version);
    // changed meanwhile: keep the ticked boxes, show theirs beside them
    if (errorCode(r.error) === 'VERSION_CONFLICT') return setConflict(await versioned.latest());
    setConflict(null);
    // refused (the last administrator, a role beyond the caller's own): the boxes show what is still saved
    if (r.error) setRoleIds(user.roles.map((role) => role.id));
  };
  const names = (ids: string[]) =>
    ids
      .map((id) => options.find((o) => o.id === id)?.name ?? id)
      .sort()
      .join(', ');
  if (!writable) {
    return user.roles.length ? (
      <ul className="tag-list">
        {user.roles.map((r) => (
          <li key={r.id}>
            <Badge>{r.name}</Badge>
          </li>
        ))}
      </ul>
    ) : (
      <p className="muted">{t('common.none')}</p>
    );
  }
  return (
    <form
      noValidate
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        void save(versioned.version);
      }}
    >
      {conflict ? (
        <ConflictDialog
          rows={[{ label: t('users.roles'), theirs: names(conflict.roles.map((r) => r.id)), mine: names(roleIds) }]}
          busy={fetching}
          onBack={() => setConflict(null)}
          onKeepTheirs={() => {
            setRoleIds(conflict.roles.map((r) => r.id));
            versioned.onSaved(conflict.version);
            setConflict(null);
          }}
          onApplyMine={() => void save(conflict.version)}
        />
      ) : null}
      {error && errorCode(error) !== 'VERSION_CONFLICT' ? (
        <ErrorAlert error={error} />
      ) : data && !fetching && !error ? (
        <Alert kind="success">{t('users.rolesSaved')}</Alert>
      ) : null}
      <RolePicker legend={t('users.roles')} hideLegend value={roleIds} onChange={setRoleIds} />
      <div className="form-actions">
        <Button type="submit" variant="primary" disabled={fetching}>
          {t('users.saveRoles')}
        </Button>
      </div>
    </form>
  );
}

/** `onReset`: a new password counts as a change of the user (its version + 1), which the page's edits must know as its own. */
function ResetPassword({ id, onReset }: { id: string; onReset: () => void }) {
  const { t } = useI18n();
  const [password, setPassword] = useState('');
  const [{ fetching, error, data }, reset] = useMutation(ResetPasswordDocument);
  return (
    <form
      noValidate
      className="stack section-split"
      onSubmit={async (e) => {
        e.preventDefault();
        const r = await reset({ id, password });
        if (!r.error) {
          setPassword('');
          onReset();
        }
      }}
    >
      <h3>{t('users.resetPassword')}</h3>
      {error ? <ErrorAlert error={error} /> : data && !fetching ? <Alert kind="success">{t('users.passwordSet')}</Alert> : null}
      <Field label={t('users.password')} hint={t('users.passwordHint')} error={fieldMessage(t, error, 'password')}>
        {(p) => (
          <input
            {...p}
            name="newPassword"
            type="password"
            autoComplete="new-password"
            required
            minLength={12}
            maxLength={256}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        )}
      </Field>
      <div className="form-actions">
        <Button type="submit" disabled={fetching}>
          {t('users.resetPassword')}
        </Button>
      </div>
    </form>
  );
}

const ResetMfaDocument = graphql(`
  mutation ResetUserMfa($id: ID!) {
    resetUserMfa(id: $id)
  }
`);

/** SPEC §16: an administrator removes a user's second factor (a lost device); the user enrols again. */
function ResetSecondFactor({ user }: { user: User }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const [{ fetching, error, data }, reset] = useMutation(ResetMfaDocument);
  return (
    <div className="section-split">
      {data && !open ? <Alert kind="success">{t('users.mfaReset.done')}</Alert> : null}
      <Button onClick={() => setOpen(true)}>{t('users.mfaReset')}</Button>
      <ConfirmDialog
        open={open}
        title={t('users.mfaReset.title', { name: user.name })}
        body={t('users.mfaReset.body')}
        confirmLabel={t('users.mfaReset')}
        busy={fetching}
        error={error}
        onClose={() => setOpen(false)}
        onConfirm={async () => {
          const r = await reset({ id: user.id }, { additionalTypenames: ['AuditEntry'] });
          if (!r.error) setOpen(false);
        }}
      />
    </div>
  );
}

function Reactivate({ user, onReactivated }: { user: User; onReactivated: (version: number) => void }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const [{ fetching, error }, reactivate] = useMutation(ReactivateDocument);
  return (
    <div className="section-split">
      <Button variant="primary" onClick={() => setOpen(true)}>
        {t('users.reactivate')}
      </Button>
      <ConfirmDialog
        open={open}
        title={t('users.reactivate.title', { name: user.name })}
        body={t('users.reactivate.body')}
        confirmLabel={t('users.reactivate')}
        busy={fetching}
        error={error}
        onClose={() => setOpen(false)}
        onConfirm={async () => {
          const r = await reactivate({ id: user.id }, { additionalTypenames: ['User', 'AuditEntry'] });
          if (r.data) onReactivated(r.data.reactivateUser.version);
          if (!r.error) setOpen(false);
        }}
      />
    </div>
  );
}

function Deactivate({ user, onDeactivated }: { user: User; onDeactivated: () => void }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const [{ fetching, error }, deactivate] = useMutation(DeactivateDocument);
  return (
    <div className="section-split">
      <Button variant="danger" onClick={() => setOpen(true)}>
        {t('users.deactivate')}
      </Button>
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
          if (!r.error) {
            setOpen(false);
            onDeactivated();
          }
        }}
      />
    </div>
  );
}
