// The small "live" badge: live updates are flowing, or reconnecting; nothing when they are off.
import { useI18n } from '../i18n/index.js';
import type { LiveState } from '../lib/use-live-events.js';

export function LiveIndicator({ state }: { state: LiveState }) {
  const { t } = useI18n();
  if (state === 'off') return null;
  return (
    <span className={`live-indicator live-indicator--${state}`} role="status" data-testid="live-indicator" data-state={state}>
      <span aria-hidden="true">●</span> {state === 'live' ? t('live.on') : t('live.connecting')}
    </span>
  );
}
