// A tension's history on its own page: the way to read a discarded tension's record (its stream outlives it).
import { useI18n } from '../i18n/index.js';
import { useTitle } from '../lib/use-title.js';
import { HistoryTimeline } from '../components/history-timeline.js';
import { PageHeader } from '../components/ui.js';

export function TensionHistoryPage({ id }: { id: string }) {
  const { t } = useI18n();
  useTitle(t('tension.discardedTitle'));
  return (
    <>
      <PageHeader title={t('tension.discardedTitle')} trail={[{ to: '/tensions', label: t('nav.tensions') }]}>
        <p className="muted">{t('tension.discardedIntro')}</p>
      </PageHeader>
      <section className="card" aria-labelledby="history-h">
        <h2 id="history-h">{t('tension.history')}</h2>
        <HistoryTimeline id={id} />
      </section>
    </>
  );
}
