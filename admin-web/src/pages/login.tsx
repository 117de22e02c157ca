// The sign-in page for human operators; any refusal reads the same (agents, wrong passwords, …).
import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { errorCode } from '../lib/errors.js';
import { useTitle } from '../lib/use-title.js';
import { Alert, Button, ErrorAlert, Field } from '../components/ui.js';
import { LanguageSwitch } from '../components/language-switch.js';
import type { Notice } from '../session-root.js';

const LoginDocument = graphql(`
  mutation Login($input: LoginInput!) {
    login(input: $input) {
      user { id name }
    }
  }
`);

export function LoginPage({ notice, onSignedIn }: { notice: Notice; onSignedIn: () => void }) {
  const { t } = useI18n();
  useTitle(t('login.title'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [{ fetching, error }, login] = useMutation(LoginDocument);
  const code = errorCode(error);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const result = await login({ input: { email, password } });
    if (result.data?.login) onSignedIn();
  };

  return (
    <div className="login-page">
      <main className="login-card" id="main">
        <div className="login-head">
          <div className="brand"><span className="brand-mark" aria-hidden="true">◆</span>{t('app.title')}</div>
          <LanguageSwitch />
        </div>
        <h1>{t('login.title')}</h1>
        <p className="muted">{t('login.intro')}</p>
        {notice === 'expired' && !error ? <Alert kind="warning">{t('login.expired')}</Alert> : null}
        {notice === 'loggedOut' && !error ? <Alert kind="success">{t('login.loggedOut')}</Alert> : null}
        {code === 'INVALID_CREDENTIALS' || code === 'UNAUTHENTICATED' ? <Alert kind="error">{t('login.invalid')}</Alert> : null}
        {code === 'RATE_LIMITED' ? <Alert kind="error">{t('login.rateLimited')}</Alert> : null}
        {error && !['INVALID_CREDENTIALS', 'UNAUTHENTICATED', 'RATE_LIMITED'].includes(code ?? '') ? <ErrorAlert error={error} /> : null}
        <form noValidate onSubmit={submit} className="stack">
          <Field label={t('login.email')}>
            {(p) => <input {...p} type="email" name="email" autoComplete="username" required autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />}
          </Field>
          <Field label={t('login.password')}>
            {(p) => <input {...p} type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />}
          </Field>
          <Button type="submit" variant="primary" disabled={fetching} className="btn-block">
            {fetching ? t('login.submitting') : t('login.submit')}
          </Button>
        </form>
      </main>
    </div>
  );
}
