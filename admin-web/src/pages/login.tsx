// The sign-in page for human operators; any refusal reads the same (agents, wrong passwords, …).
import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, type CombinedError } from 'urql';
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

const LoginMfaDocument = graphql(`
  mutation LoginMfa($input: LoginMfaInput!) {
    loginMfa(input: $input) {
      user { id name }
    }
  }
`);

/** The mfaToken of a password step answered MFA_REQUIRED (SPEC §16), or null. */
function mfaTokenOf(error: CombinedError | undefined): string | null {
  for (const e of error?.graphQLErrors ?? []) {
    if (e.extensions?.code === 'MFA_REQUIRED' && typeof e.extensions.mfaToken === 'string') return e.extensions.mfaToken;
  }
  return null;
}

const SSO_ERRORS = ['refused', 'failed', 'throttled', 'unavailable'] as const;
type SsoError = (typeof SSO_ERRORS)[number];

/** Why single sign-on sent the browser back here (`?sso_error=`), or null. */
function ssoErrorOf(search: string): SsoError | null {
  const value = new URLSearchParams(search).get('sso_error');
  return SSO_ERRORS.find((e) => e === value) ?? null;
}

/** The mfaToken single sign-on hands over in the fragment (never sent to a server); read once, then removed from the address. */
function takeFragmentMfaToken(): string | null {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('mfaToken');
  if (token) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return token;
}

/** Whether the service offers single sign-on, and under which name (SPEC §16). */
function useSsoProvider(): string | null {
  const [name, setName] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    fetch('/api/v1/auth/oidc')
      .then((r) => (r.ok ? (r.json() as Promise<{ enabled: boolean; displayName: string | null }>) : null))
      .then((info) => {
        if (live && info?.enabled) setName(info.displayName);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  return name;
}

export function LoginPage({ notice, onSignedIn }: { notice: Notice; onSignedIn: () => void }) {
  const { t } = useI18n();
  useTitle(t('login.title'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [{ fetching, error }, login] = useMutation(LoginDocument);
  const [mfaToken, setMfaToken] = useState<string | null>(takeFragmentMfaToken);
  const [ssoError] = useState(() => ssoErrorOf(window.location.search));
  const ssoName = useSsoProvider();
  const code = errorCode(error);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const result = await login({ input: { email, password } });
    if (result.data?.login) onSignedIn();
    const token = mfaTokenOf(result.error);
    if (token) setMfaToken(token);
  };

  if (mfaToken)
    return (
      <SecondStep
        mfaToken={mfaToken}
        onSignedIn={onSignedIn}
        onRestart={() => {
          setMfaToken(null);
          setPassword('');
        }}
      />
    );

  return (
    <div className="login-page">
      <main className="login-card" id="main">
        <div className="login-head">
          <div className="brand">
            <span className="brand-mark" aria-hidden="true">
              ◆
            </span>
            {t('app.title')}
          </div>
          <LanguageSwitch />
        </div>
        <h1>{t('login.title')}</h1>
        <p className="muted">{t('login.intro')}</p>
        {notice === 'expired' && !error ? <Alert kind="warning">{t('login.expired')}</Alert> : null}
        {notice === 'loggedOut' && !error ? <Alert kind="success">{t('login.loggedOut')}</Alert> : null}
        {code === 'INVALID_CREDENTIALS' || code === 'UNAUTHENTICATED' ? <Alert kind="error">{t('login.invalid')}</Alert> : null}
        {code === 'RATE_LIMITED' ? <Alert kind="error">{t('login.rateLimited')}</Alert> : null}
        {ssoError && !error ? <Alert kind="error">{t(`login.ssoError.${ssoError}`)}</Alert> : null}
        {error && !['INVALID_CREDENTIALS', 'UNAUTHENTICATED', 'RATE_LIMITED', 'MFA_REQUIRED'].includes(code ?? '') ? <ErrorAlert error={error} /> : null}
        <form noValidate onSubmit={submit} className="stack">
          <Field label={t('login.email')}>
            {(p) => (
              <input {...p} type="email" name="email" autoComplete="username" required autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />
            )}
          </Field>
          <Field label={t('login.password')}>
            {(p) => (
              <input
                {...p}
                type="password"
                name="password"
                autoComplete="current-password"
                required
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </Field>
          <Button type="submit" variant="primary" disabled={fetching} className="btn-block">
            {fetching ? t('login.submitting') : t('login.submit')}
          </Button>
        </form>
        {ssoName ? (
          <div className="stack">
            <p className="muted login-or">{t('login.or')}</p>
            <a className="btn btn-secondary btn-block" href="/api/v1/auth/oidc/start">
              {t('login.sso', { name: ssoName })}
            </a>
          </div>
        ) : null}
      </main>
    </div>
  );
}

/** The second step: a code from the authenticator app, or a recovery code. */
function SecondStep({ mfaToken, onSignedIn, onRestart }: { mfaToken: string; onSignedIn: () => void; onRestart: () => void }) {
  const { t } = useI18n();
  useTitle(t('login.mfaTitle'));
  const [code, setCode] = useState('');
  const [{ fetching, error }, loginMfa] = useMutation(LoginMfaDocument);
  const refused = errorCode(error);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const result = await loginMfa({ input: { mfaToken, code } });
    if (result.data?.loginMfa) onSignedIn();
  };
  return (
    <div className="login-page">
      <main className="login-card" id="main">
        <div className="login-head">
          <div className="brand">
            <span className="brand-mark" aria-hidden="true">
              ◆
            </span>
            {t('app.title')}
          </div>
          <LanguageSwitch />
        </div>
        <h1>{t('login.mfaTitle')}</h1>
        <p className="muted">{t('login.mfaIntro')}</p>
        {refused === 'INVALID_CREDENTIALS' ? <Alert kind="error">{t('login.mfaInvalid')}</Alert> : null}
        {refused === 'RATE_LIMITED' ? <Alert kind="error">{t('login.rateLimited')}</Alert> : null}
        {error && !['INVALID_CREDENTIALS', 'RATE_LIMITED'].includes(refused ?? '') ? <ErrorAlert error={error} /> : null}
        <form noValidate onSubmit={submit} className="stack">
          <Field label={t('login.mfaCode')}>
            {(p) => (
              <input
                {...p}
                name="code"
                autoComplete="one-time-code"
                inputMode="text"
                required
                autoFocus
                maxLength={64}
                value={code}
                onChange={(e) => setCode(e.target.value)}
              />
            )}
          </Field>
          <Button type="submit" variant="primary" disabled={fetching} className="btn-block">
            {fetching ? t('login.submitting') : t('login.mfaSubmit')}
          </Button>
          <Button type="button" onClick={onRestart} className="btn-block">
            {t('login.mfaRestart')}
          </Button>
        </form>
      </main>
    </div>
  );
}
