// The language switch: a labelled select, remembered across visits.
import { LANGUAGES, useI18n, type Language } from '../i18n/index.js';

const NAMES: Record<Language, string> = { en: 'English', de: 'Deutsch' };

export function LanguageSwitch() {
  const { lang, setLang, t } = useI18n();
  return (
    <label className="lang-switch">
      <span className="visually-hidden">{t('nav.language')}</span>
      <select value={lang} onChange={(e) => setLang(e.target.value as Language)} aria-label={t('nav.language')}>
        {LANGUAGES.map((l) => (
          <option key={l} value={l} lang={l}>
            {NAMES[l]}
          </option>
        ))}
      </select>
    </label>
  );
}
