// Connected apps (SPEC §13): the AI clients a person allowed, with Revoke; on the account page and user pages.
import { useCallback, useEffect, useState } from 'react';
import { useI18n } from '../i18n/index.js';
import { listConnectedApps, revokeConnectedApp, type ConnectedApp } from '../lib/oauth-api.js';
import { KeyPermissions } from './key-bits.js';
import { Alert, Badge, Button, ConfirmDialog, EmptyState, Loading } from './ui.js';

export function ConnectedApps({ userId, canWrite }: { userId?: string; canWrite: boolean }) {
  const { t, formatDate } = useI18n();
  const [apps, setApps] = useState<ConnectedApp[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<ConnectedApp | null>(null);
  const [busy, setBusy] = useState(false);
  const load = useCallback(() => {
    listConnectedApps(userId).then(
      (r) => setApps(r.data),
      (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
    );
  }, [userId]);
  useEffect(load, [load]);
  if (error) return <Alert kind="error">{error}</Alert>;
  if (!apps) return <Loading />;
  if (apps.length === 0) return <EmptyState>{t('apps.none')}</EmptyState>;
  return (
    <>
      <table className="table">
        <thead>
          <tr>
            <th scope="col">{t('apps.client')}</th>
            <th scope="col">{t('apps.scopes')}</th>
            <th scope="col">{t('apps.created')}</th>
            <th scope="col">{t('apps.lastUsed')}</th>
            {canWrite ? (
              <th scope="col">
                <span className="sr-only">{t('apps.revoke')}</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {apps.map((a) => (
            <tr key={a.id}>
              <td>
                {a.client.name}{' '}
                <Badge tone={a.client.verified ? 'success' : 'warning'}>{a.client.verified ? t('consent.verified') : t('consent.unverified')}</Badge>
              </td>
              <td>
                <KeyPermissions permissions={a.scopes} />
              </td>
              <td>{formatDate(a.createdAt)}</td>
              <td>{a.lastUsedAt ? formatDate(a.lastUsedAt) : t('common.never')}</td>
              {canWrite ? (
                <td>
                  <Button onClick={() => setRevoking(a)}>{t('apps.revoke')}</Button>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      <ConfirmDialog
        title={t('apps.revoke')}
        body={t('apps.revokeConfirm', { client: revoking?.client.name ?? '' })}
        confirmLabel={t('apps.revoke')}
        open={revoking !== null}
        busy={busy}
        onClose={() => setRevoking(null)}
        onConfirm={() => {
          if (!revoking) return;
          setBusy(true);
          revokeConnectedApp(revoking.id, userId)
            .then(
              () => {
                setRevoking(null);
                load();
              },
              (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
            )
            .finally(() => setBusy(false));
        }}
      />
    </>
  );
}
