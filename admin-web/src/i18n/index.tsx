// Translation: the language in context (remembered in localStorage), `t(key, params)` and dates.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { MessageKey } from './en.js';
import { catalogues, interpolate, type Language, type Params } from './translate.js';

export { LANGUAGES, translateSummary, type Language } from './translate.js';
const STORAGE_KEY = 'market-admin.language';

interface I18nValue {
  lang: Language;
  setLang(lang: Language): void;
  t(key: MessageKey, params?: Params): string;
  formatDate(iso: string | null | undefined): string;
}

const I18nContext = createContext<I18nValue | null>(null);

function initialLanguage(): Language {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored === 'en' || stored === 'de') return stored;
  return navigator.language.toLowerCase().startsWith('de') ? 'de' : 'en';
}

export function I18nProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Language>(initialLanguage);
  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);
  const setLang = useCallback((next: Language) => {
    localStorage.setItem(STORAGE_KEY, next);
    setLangState(next);
  }, []);
  const value = useMemo<I18nValue>(() => {
    const dates = new Intl.DateTimeFormat(lang === 'de' ? 'de-DE' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' });
    return {
      lang,
      setLang,
      t: (key, params) => interpolate(catalogues[lang][key], params, lang),
      formatDate: (iso) => (iso ? dates.format(new Date(iso)) : ''),
    };
  }, [lang, setLang]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18nValue {
  const value = useContext(I18nContext);
  if (!value) throw new Error('useI18n outside I18nProvider');
  return value;
}
