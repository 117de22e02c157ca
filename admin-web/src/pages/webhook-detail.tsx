// One webhook endpoint: its status, edit (URL, types, enabled), rotate the secret (shown once), send a test
// message, delete; and its deliveries log (status, attempts, response code, duration, next attempt) with a
// status filter kept in the URL and Retry on each delivery.
import { useMemo, useState } from 'react';
import { useMutation, useQuery, type CombinedError } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { useRouter } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { usePager, useUrlFilters } from '../lib/use-pager.js';
import { ListPaging, limitParam, pageSize } from '../components/list-footer.js';
import { useTitle } from '../lib/use-title.js';
import { Alert, Button, ConfirmDialog, EmptyState, ErrorAlert, Field, Loading, PageHeader, ListStates } from '../components/ui.js';
import { EndpointDialog, RotateSecretDialog, SecretOnceDialog } from '../components/webhook-dialogs.js';
import { DELIVERY_STATUSES, DeliveryStatus, EndpointStatus, EventTypes, deliveryLabel } from '../components/webhook-bits.js';

const WebhookDocument = graphql(`
  query Webhook($id: ID!) {
    webhook(id: $id) { id url description types enabled disabledReason failingSince previousSecretExpiresAt version createdAt }
  }
`);
const DeliveriesDocument = graphql(`
  query WebhookDeliveries($id: ID!, $status: String, $limit: Int, $cursor: String) {
    webhookDeliveries(id: $id, status: $status, limit: $limit, cursor: $cursor) {
      data { id eventType attempts status lastResponseStatus lastError durationMs lastAttemptAt nextAttemptAt createdAt }
      nextCursor
    }
    webhookDeliveriesTotal(id: $id, status: $status) { count exact }
  }
`);
const UpdateDocument = graphql(`
  mutation UpdateWebhook($id: ID!, $input: UpdateWebhookInput!) {
    updateWebhook(id: $id, input: $input) { id url description types enabled disabledReason failingSince version }
  }
`);
const RotateDocument = graphql(`
  mutation RotateWebhookSecret($id: ID!, $overlapSeconds: Int) {
    rotateWebhookSecret(id: $id, overlapSeconds: $overlapSeconds) { secret webhook { id previousSecretExpiresAt version } }
  }
`);
const TestDocument = graphql(`
  mutation TestWebhook($id: ID!) {
    testWebhook(id: $id) { id }
  }
`);
const RetryDocument = graphql(`
  mutation RetryWebhookDelivery($id: ID!, $deliveryId: ID!) {
    retryWebhookDelivery(id: $id, deliveryId: $deliveryId) { id status nextAttemptAt }
  }
`);
const DeleteDocument = graphql(`
  mutation DeleteWebhook($id: ID!) {
    deleteWebhook(id: $id)
  }
`);

const ctx = { additionalTypenames: ['Webhook', 'WebhookDelivery', 'WebhookWithSecret'] };

export function WebhookDetailPage({ id }: { id: string }) {
  const { t, formatDate } = useI18n();
  const { can } = useSession();
  const { navigate } = useRouter();
  const writer = can('webhooks:write');
  const context = useMemo(() => ctx, []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: WebhookDocument, variables: { id }, context });
  const endpoint = data?.webhook;
  useTitle(endpoint?.url ?? t('webhooks.title'));
  const [, update] = useMutation(UpdateDocument);
  const [, rotate] = useMutation(RotateDocument);
  const [testState, test] = useMutation(TestDocument);
  const [deleteState, remove] = useMutation(DeleteDocument);
  const [dialog, setDialog] = useState<'edit' | 'rotate' | 'delete' | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [notice, setNotice] = useState<'tested' | null>(null);
  const [actionError, setActionError] = useState<CombinedError | undefined>();

  if (error && !data) return <ErrorAlert error={error} onRetry={() => refetch({ requestPolicy: 'network-only' })} />;
  if (!endpoint) return fetching ? <Loading /> : <EmptyState>{t('common.notFound')}</EmptyState>;
  return (
    <>
      <PageHeader
        title={endpoint.url}
        trail={[{ to: '/webhooks', label: t('webhooks.title') }]}
        actions={
          writer ? (
            <>
              <Button onClick={() => setDialog('edit')}>{t('common.edit')}</Button>
              <Button
                disabled={!endpoint.enabled || testState.fetching}
                onClick={async () => {
                  const r = await test({ id }, context);
                  setActionError(r.error);
                  setNotice(r.error ? null : 'tested');
                }}
              >
                {t('webhooks.test')}
              </Button>
              <Button onClick={() => setDialog('rotate')}>{t('webhooks.rotate')}</Button>
              <Button variant="danger" onClick={() => setDialog('delete')}>
                {t('common.delete')}
              </Button>
            </>
          ) : null
        }
      />
      {notice ? <Alert kind="success">{t('webhooks.test.queued')}</Alert> : null}
      {actionError ? <ErrorAlert error={actionError} /> : null}
      <dl className="facts card">
        <dt>{t('common.status')}</dt>
        <dd>
          <EndpointStatus endpoint={endpoint} />
        </dd>
        <dt>{t('webhooks.types')}</dt>
        <dd>
          <EventTypes types={endpoint.types ?? null} />
        </dd>
        <dt>{t('webhooks.description')}</dt>
        <dd>{endpoint.description ?? <span className="muted">—</span>}</dd>
        {endpoint.previousSecretExpiresAt ? (
          <>
            <dt>{t('webhooks.previousSecret')}</dt>
            <dd>{t('webhooks.previousSecret.until', { date: formatDate(endpoint.previousSecretExpiresAt) })}</dd>
          </>
        ) : null}
        <dt>{t('common.created')}</dt>
        <dd>{formatDate(endpoint.createdAt)}</dd>
      </dl>
      <Deliveries id={id} writer={writer} />
      {dialog === 'edit' ? (
        <EndpointDialog
          title={t('webhooks.edit.title')}
          initial={{ url: endpoint.url, description: endpoint.description ?? null, types: endpoint.types ?? null, enabled: endpoint.enabled }}
          onClose={() => setDialog(null)}
          save={async (form) => {
            const r = await update({ id, input: { ...form, expectedVersion: endpoint.version } }, context);
            return r.data ? { done: true } : { error: r.error };
          }}
        />
      ) : null}
      {dialog === 'rotate' ? (
        <RotateSecretDialog
          onClose={() => setDialog(null)}
          rotate={async (overlapSeconds) => {
            const r = await rotate({ id, overlapSeconds }, context);
            if (!r.data) return { error: r.error };
            setDialog(null);
            setSecret(r.data.rotateWebhookSecret.secret);
            return { done: true };
          }}
        />
      ) : null}
      <SecretOnceDialog secret={secret} onClose={() => setSecret(null)} />
      <ConfirmDialog
        open={dialog === 'delete'}
        title={t('webhooks.delete.title')}
        body={t('webhooks.delete.body')}
        confirmLabel={t('common.delete')}
        busy={deleteState.fetching}
        error={deleteState.error}
        onClose={() => setDialog(null)}
        onConfirm={async () => {
          const r = await remove({ id }, context);
          if (!r.error) navigate('/webhooks', { force: true });
        }}
      />
    </>
  );
}

function Deliveries({ id, writer }: { id: string; writer: boolean }) {
  const { t, formatDate } = useI18n();
  const pager = usePager();
  const [filters, setFilters] = useUrlFilters(['status', 'limit'] as const);
  const limit = pageSize(filters.limit);
  const context = useMemo(() => ctx, []);
  const [{ data, error, fetching }, refetch] = useQuery({
    query: DeliveriesDocument,
    variables: { id, status: filters.status || null, limit, cursor: pager.cursor },
    context,
  });
  const [, retry] = useMutation(RetryDocument);
  const [retryError, setRetryError] = useState<CombinedError | undefined>();
  const rows = data?.webhookDeliveries.data ?? [];
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">{t('webhooks.deliveries')}</h2>
      <form noValidate className="filters card" role="search" aria-label={t('common.filters')} onSubmit={(e) => e.preventDefault()}>
        <Field label={t('common.status')}>
          {(p) => (
            <select {...p} name="status" value={filters.status} onChange={(e) => setFilters({ status: e.target.value })}>
              <option value="">{t('common.any')}</option>
              {DELIVERY_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {t(deliveryLabel(s)!)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Button onClick={() => refetch({ requestPolicy: 'network-only' })}>{t('common.reload')}</Button>
      </form>
      {retryError ? <ErrorAlert error={retryError} /> : null}
      <ListStates
        data={data}
        error={error}
        fetching={fetching}
        refetch={refetch}
        empty={() => (rows.length === 0 && pager.page === 1 ? t('webhooks.deliveries.empty') : null)}
      >
        {(data) => (
          <>
            <div className="table-wrap card">
              <table className="table" data-testid="deliveries">
                <caption className="visually-hidden">{t('webhooks.deliveries')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('webhooks.delivery.event')}</th>
                    <th scope="col">{t('common.status')}</th>
                    <th scope="col">{t('webhooks.delivery.attempts')}</th>
                    <th scope="col">{t('webhooks.delivery.response')}</th>
                    <th scope="col">{t('webhooks.delivery.duration')}</th>
                    <th scope="col">{t('webhooks.delivery.lastAttempt')}</th>
                    <th scope="col">{t('webhooks.delivery.nextAttempt')}</th>
                    {writer ? <th scope="col">{t('common.actions')}</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {rows.map((d) => (
                    <tr key={d.id}>
                      <td>
                        <code>{d.eventType}</code>
                      </td>
                      <td data-label={t('common.status')}>
                        <DeliveryStatus status={d.status} />
                      </td>
                      <td data-label={t('webhooks.delivery.attempts')}>{d.attempts}</td>
                      <td data-label={t('webhooks.delivery.response')} title={d.lastError ?? undefined}>
                        {d.lastResponseStatus ?? (d.lastError ? <span className="muted">{d.lastError}</span> : '—')}
                      </td>
                      <td data-label={t('webhooks.delivery.duration')}>
                        {d.durationMs === null || d.durationMs === undefined ? '—' : t('webhooks.delivery.ms', { ms: d.durationMs })}
                      </td>
                      <td data-label={t('webhooks.delivery.lastAttempt')}>{d.lastAttemptAt ? formatDate(d.lastAttemptAt) : '—'}</td>
                      <td data-label={t('webhooks.delivery.nextAttempt')}>{d.nextAttemptAt ? formatDate(d.nextAttemptAt) : '—'}</td>
                      {writer ? (
                        <td data-label={t('common.actions')}>
                          <Button
                            aria-label={t('webhooks.delivery.retry.label', { type: d.eventType })}
                            onClick={async () => {
                              const r = await retry({ id, deliveryId: d.id }, context);
                              setRetryError(r.error);
                            }}
                          >
                            {t('webhooks.delivery.retry')}
                          </Button>
                        </td>
                      ) : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <ListPaging
              pager={pager}
              nextCursor={data.webhookDeliveries.nextCursor}
              limit={limit}
              shown={rows.length}
              total={data.webhookDeliveriesTotal}
              onPageSize={(n) => setFilters({ limit: limitParam(n) })}
            />
          </>
        )}
      </ListStates>
    </section>
  );
}
