// "Export CSV / NDJSON" on a list page (issue 36): links to the REST export of the list with the filters on
// screen, so the file holds every page matching them. A plain link: the session cookie goes with it.
import { useI18n } from '../i18n/index.js';
import { useSession } from '../lib/session.js';

type Filters = Record<string, string | null | undefined>;

export function ExportLinks({ list, permission, filters }: { list: 'tensions' | 'actors' | 'users' | 'audit'; permission: string; filters: Filters }) {
  const { t } = useI18n();
  const { can } = useSession();
  if (!can(permission)) return null;
  const href = (format: 'csv' | 'ndjson') => {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(filters)) if (v) query.set(k, v);
    query.set('format', format);
    return `/api/v1/export/${list}?${query.toString()}`;
  };
  return (
    <span className="export-links" role="group" aria-label={t('export.label')}>
      {(['csv', 'ndjson'] as const).map((format) => (
        <a key={format} className="btn btn-secondary" href={href(format)} download title={t('export.title', { format: t(`export.${format}`) })}>
          {t('export.as', { format: t(`export.${format}`) })}
        </a>
      ))}
    </span>
  );
}
