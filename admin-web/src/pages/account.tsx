// My account: who I am, what I may do, my password and my own API keys.
import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { fieldMessage } from '../lib/refusals.js';
import { useSession } from '../lib/session.js';
import { useTitle } from '../lib/use-title.js';
import { ApiKeys } from '../components/api-keys.js';
import { SecondFactor } from '../components/second-factor.js';
import { ConnectedApps } from '../components/connected-apps.js';
import { Alert, Badge, Button, ErrorAlert, Field, PageHeader } from '../components/ui.js';

const ChangePasswordDocument = graphql(`
  mutation ChangePassword($input: ChangePasswordInput!) {
    changePassword(input: $input)
  }
`);

export function AccountPage() {
  const { t } = useI18n();
  useTitle(t('account.title'));
  const { me } = useSession();
  return (
    <>
      <PageHeader title={t('account.title')}>
        <div className="header-meta">
          <span className="strong">{me.user.name}</span>
          <span className="muted">{me.user.email}</span>
          {me.roles.map((r) => (
            <Badge key={r.id}>{r.name}</Badge>
          ))}
        </div>
      </PageHeader>
      <div className="detail-grid">
        <section className="card" aria-labelledby="pw-h">
          <h2 id="pw-h">{t('account.changePassword')}</h2>
          <ChangePassword />
        </section>
        <section className="card" aria-labelledby="mfa-h">
          <h2 id="mfa-h">{t('account.mfa')}</h2>
          <SecondFactor />
        </section>
        <section className="card" aria-labelledby="perm-h">
          <h2 id="perm-h">{t('account.permissions')}</h2>
          {me.permissions.length ? (
            <ul className="perm-list">
              {me.permissions.map((p) => (
                <li key={p}>
                  <code className="perm">{p}</code>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">{t('roles.noPermissions')}</p>
          )}
        </section>
      </div>
      <section className="card" aria-labelledby="mykeys-h">
        <h2 id="mykeys-h">{t('account.keys')}</h2>
        <p className="muted">{t('account.keysIntro')}</p>
        <ApiKeys userGrants={me.permissions} canWrite />
      </section>
      <section className="card" aria-labelledby="myapps-h">
        <h2 id="myapps-h">{t('apps.title')}</h2>
        <p className="muted">{t('apps.intro')}</p>
        <ConnectedApps canWrite />
      </section>
    </>
  );
}

function ChangePassword() {
  const { t } = useI18n();
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [{ fetching, error, data }, change] = useMutation(ChangePasswordDocument);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await change({ input: { currentPassword, newPassword } });
    if (!r.error) {
      setCurrent('');
      setNew('');
    }
  };
  return (
    <form noValidate className="stack" onSubmit={submit}>
      {error ? <ErrorAlert error={error} /> : data && !fetching ? <Alert kind="success">{t('account.passwordChanged')}</Alert> : null}
      <Field label={t('account.currentPassword')} error={fieldMessage(t, error, 'currentPassword')}>
        {(p) => (
          <input
            {...p}
            name="currentPassword"
            type="password"
            autoComplete="current-password"
            required
            value={currentPassword}
            onChange={(e) => setCurrent(e.target.value)}
          />
        )}
      </Field>
      <Field label={t('account.newPassword')} hint={t('users.passwordHint')} error={fieldMessage(t, error, 'newPassword')}>
        {(p) => (
          <input
            {...p}
            name="newPassword"
            type="password"
            autoComplete="new-password"
            required
            minLength={12}
            maxLength={256}
            value={newPassword}
            onChange={(e) => setNew(e.target.value)}
          />
        )}
      </Field>
      <div className="form-actions">
        <Button type="submit" variant="primary" disabled={fetching}>
          {t('account.changePassword')}
        </Button>
      </div>
    </form>
  );
}
