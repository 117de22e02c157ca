// Small pieces the webhook pages share: an endpoint's status in words, its event types, a delivery's status.
import { useI18n } from '../i18n/index.js';
import type { MessageKey } from '../i18n/en.js';
import { Badge } from './ui.js';

const REASON: Record<string, MessageKey> = {
  manual: 'webhooks.disabled.manual',
  gone: 'webhooks.disabled.gone',
  failing: 'webhooks.disabled.failing',
};

export function EndpointStatus({ endpoint }: { endpoint: { enabled: boolean; disabledReason?: string | null; failingSince?: string | null } }) {
  const { t, formatDate } = useI18n();
  if (!endpoint.enabled) {
    const reason = endpoint.disabledReason ? REASON[endpoint.disabledReason] : undefined;
    return (
      <span data-testid="webhook-status">
        <Badge tone="grey">{t('webhooks.status.disabled')}</Badge> {reason ? <span className="muted">{t(reason)}</span> : null}
      </span>
    );
  }
  return (
    <span data-testid="webhook-status">
      <Badge tone="green">{t('webhooks.status.enabled')}</Badge>{' '}
      {endpoint.failingSince ? <span className="muted">{t('webhooks.failingSince', { date: formatDate(endpoint.failingSince) })}</span> : null}
    </span>
  );
}

export function EventTypes({ types }: { types: readonly string[] | null }) {
  const { t } = useI18n();
  if (types === null) return <span>{t('webhooks.types.all')}</span>;
  return (
    <ul className="tag-list">
      {types.map((type) => (
        <li key={type}>
          <code className="perm">{type}</code>
        </li>
      ))}
    </ul>
  );
}

const DELIVERY_TONE: Record<string, string> = { pending: 'blue', succeeded: 'green', retrying: 'purple', failed: 'grey' };
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'retrying', 'failed'] as const;
const DELIVERY_LABEL: Record<string, MessageKey> = {
  pending: 'webhooks.delivery.pending',
  succeeded: 'webhooks.delivery.succeeded',
  retrying: 'webhooks.delivery.retrying',
  failed: 'webhooks.delivery.failed',
};

export function DeliveryStatus({ status }: { status: string }) {
  const { t } = useI18n();
  const label = DELIVERY_LABEL[status];
  return <Badge tone={DELIVERY_TONE[status] ?? 'neutral'}>{label ? t(label) : status}</Badge>;
}

export const deliveryLabel = (status: string): MessageKey | undefined => DELIVERY_LABEL[status];
