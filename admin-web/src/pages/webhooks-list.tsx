// Webhook endpoints (SPEC §14): each with its status (enabled, or disabled and why); a new endpoint's
// signing secret is shown once, right after creation, with a copy button.
import { useMemo, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../gql/index.js';
import { useI18n } from '../i18n/index.js';
import { Link, useRouter } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { usePager } from '../lib/use-pager.js';
import { useTitle } from '../lib/use-title.js';
import { PageHeader, Pager, Button, ListStates } from '../components/ui.js';
import { EndpointDialog, SecretOnceDialog } from '../components/webhook-dialogs.js';
import { EndpointStatus, EventTypes } from '../components/webhook-bits.js';

const WebhooksDocument = graphql(`
  query Webhooks($cursor: String) {
    webhooks(limit: 50, cursor: $cursor) {
      data { id url description types enabled disabledReason failingSince }
      nextCursor
    }
  }
`);
const CreateWebhookDocument = graphql(`
  mutation CreateWebhook($input: CreateWebhookInput!) {
    createWebhook(input: $input) { secret webhook { id } }
  }
`);

export function WebhooksPage() {
  const { t } = useI18n();
  useTitle(t('webhooks.title'));
  const { can } = useSession();
  const { navigate } = useRouter();
  const pager = usePager();
  const context = useMemo(() => ({ additionalTypenames: ['Webhook', 'WebhookWithSecret'] }), []);
  const [{ data, error, fetching }, refetch] = useQuery({ query: WebhooksDocument, variables: { cursor: pager.cursor }, context });
  const [, create] = useMutation(CreateWebhookDocument);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ id: string; secret: string } | null>(null);
  return (
    <>
      <PageHeader
        title={t('webhooks.title')}
        actions={
          can('webhooks:write') ? (
            <Button variant="primary" onClick={() => setCreating(true)}>
              + {t('webhooks.new')}
            </Button>
          ) : null
        }
      >
        <p className="muted">{t('webhooks.intro')}</p>
      </PageHeader>
      <ListStates
        data={data}
        error={error}
        fetching={fetching}
        refetch={refetch}
        empty={(data) => (data.webhooks.data.length === 0 ? t('webhooks.empty') : null)}
      >
        {(data) => (
          <>
            <div className="table-wrap card">
              <table className="table">
                <caption className="visually-hidden">{t('webhooks.title')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('webhooks.url')}</th>
                    <th scope="col">{t('webhooks.types')}</th>
                    <th scope="col">{t('common.status')}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.webhooks.data.map((w) => (
                    <tr key={w.id}>
                      <td>
                        <Link to={`/webhooks/${w.id}`} className="row-link mono">
                          {w.url}
                        </Link>
                        {w.description ? <div className="muted">{w.description}</div> : null}
                      </td>
                      <td data-label={t('webhooks.types')}>
                        <EventTypes types={w.types ?? null} />
                      </td>
                      <td data-label={t('common.status')}>
                        <EndpointStatus endpoint={w} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager
              page={pager.page}
              hasNext={Boolean(data.webhooks.nextCursor)}
              onPrevious={pager.previous}
              onNext={() => data.webhooks.nextCursor && pager.next(data.webhooks.nextCursor)}
            />
          </>
        )}
      </ListStates>
      {creating ? (
        <EndpointDialog
          title={t('webhooks.new')}
          initial={{ url: '', description: null, types: null, enabled: true }}
          onClose={() => setCreating(false)}
          save={async (form) => {
            const r = await create({ input: form }, context);
            const made = r.data?.createWebhook;
            if (!made) return { error: r.error };
            setCreated({ id: made.webhook.id, secret: made.secret });
            return { done: true };
          }}
        />
      ) : null}
      <SecretOnceDialog
        secret={created?.secret ?? null}
        onClose={() => {
          const id = created?.id;
          setCreated(null);
          if (id) navigate(`/webhooks/${id}`);
        }}
      />
    </>
  );
}
