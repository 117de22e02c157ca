// Small tension presentations used by the list and the detail page.
import { useI18n } from '../i18n/index.js';
import type { MessageKey } from '../i18n/en.js';
import { Link } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { Badge } from './ui.js';

export const STATES = ['alive', 'resolved', 'stale'] as const;
const TONE: Record<string, string> = { alive: 'green', resolved: 'blue', stale: 'grey' };

export function StateBadge({ state }: { state: string }) {
  const { t } = useI18n();
  const key = `tension.state.${state}` as MessageKey;
  return <Badge tone={TONE[state] ?? 'neutral'}>{t(key)}</Badge>;
}

export function ScorePill({ score }: { score: number }) {
  const level = score >= 8 ? 'high' : score >= 4 ? 'mid' : 'low';
  return (
    <span className={`score score-${level}`} aria-label={`${score}/10`}>
      {score}
    </span>
  );
}

/** Who leads a tension, marked in words when that user is deactivated (the list and the page read the status with the lead). */
/** An actor's name, linked to its tensions (the list filtered on it). */
export function ActorLink({ actor }: { actor: { id: string; name: string } }) {
  return (
    <Link to={`/tensions?actorId=${encodeURIComponent(actor.id)}`} className="name-link">
      {actor.name}
    </Link>
  );
}

/** A lead's name, linked to the user's page for an operator who may read users. */
export function LeadName({ lead }: { lead: { id?: string; name: string; status?: string | null } | null }) {
  const { t } = useI18n();
  const { can } = useSession();
  if (!lead) return <span className="muted">{t('tension.noLead')}</span>;
  return (
    <>
      {lead.id && can('users:read') ? (
        <Link to={`/users/${lead.id}`} className="name-link">
          {lead.name}
        </Link>
      ) : (
        lead.name
      )}
      {lead.status === 'deactivated' ? (
        <>
          {' '}
          <Badge tone="grey">{t('users.status.deactivated')}</Badge>
        </>
      ) : null}
    </>
  );
}
