// Sets the document title to "<page> · Market admin" (screen readers announce it on navigation).
import { useEffect } from 'react';
import { useI18n } from '../i18n/index.js';

export function useTitle(page: string): void {
  const { t } = useI18n();
  useEffect(() => {
    document.title = page ? `${page} · ${t('app.title')}` : t('app.title');
  }, [page, t]);
}
