// The OAuth consent page (SPEC §13): which client asks, for which permissions; the person narrows them and
// allows or denies. The server refuses agents and keys; this page is reached after sign-in.
import { useEffect, useState } from 'react';
import { useI18n } from '../i18n/index.js';
import { useTitle } from '../lib/use-title.js';
import { ApiError, consentDecision, consentDetails, type ConsentDetails } from '../lib/oauth-api.js';
import { KeyPermissionPicker } from '../components/key-bits.js';
import { Alert, Badge, Button, Loading, PageHeader } from '../components/ui.js';

export function ConsentPage({ uid }: { uid: string }) {
  const { t } = useI18n();
  useTitle(t('consent.title'));
  const [details, setDetails] = useState<ConsentDetails | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [permissions, setPermissions] = useState<string[] | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    consentDetails(uid).then(
      (d) => live && setDetails(d),
      (e: unknown) => live && setFailure(e instanceof ApiError && e.status === 404 ? t('consent.expired') : e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [uid, t]);
  if (failure) return <Alert kind="error">{failure}</Alert>;
  if (!details) return <Loading />;
  const offered = details.requested === null ? details.grantable : details.requested.filter((p) => details.grantable.includes(p));
  const decide = async (decision: 'allow' | 'deny') => {
    setBusy(true);
    try {
      const { redirectTo } = await consentDecision(uid, {
        decision,
        csrfToken: details.csrfToken,
        ...(decision === 'allow' && permissions !== null ? { scopes: permissions } : {}),
      });
      window.location.assign(redirectTo);
    } catch (e) {
      setBusy(false);
      setFailure(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <>
      <PageHeader title={t('consent.title')} />
      <section className="card stack" aria-labelledby="consent-h">
        <h2 id="consent-h">
          {t('consent.lead', { client: details.client.name })}{' '}
          <Badge tone={details.client.verified ? 'success' : 'warning'}>{details.client.verified ? t('consent.verified') : t('consent.unverified')}</Badge>
        </h2>
        {details.client.redirectHost ? <p className="muted">{t('consent.redirectsTo', { host: details.client.redirectHost })}</p> : null}
        <p>{t('consent.explain')}</p>
        {offered.length === 0 ? (
          <Alert kind="warning">{t('consent.nothingToGrant')}</Alert>
        ) : (
          <KeyPermissionPicker offered={offered} value={permissions} onChange={setPermissions} />
        )}
        <div className="actions">
          <Button
            variant="primary"
            disabled={busy || offered.length === 0 || (permissions !== null && permissions.length === 0)}
            onClick={() => void decide('allow')}
          >
            {t('consent.allow')}
          </Button>
          <Button disabled={busy} onClick={() => void decide('deny')}>
            {t('consent.deny')}
          </Button>
        </div>
      </section>
    </>
  );
}
