// A day typed in the app's language (issue 36): a native date input shows the browser's format (mm/dd/yyyy in
// an American Chromium, even in German), so this is a text input with the language's pattern — dd.mm.yyyy in
// German, dd/mm/yyyy in English (the app's en-GB dates) — parsed here; the value is an ISO day (yyyy-mm-dd).
// A time of day is hh:mm on the 24-hour clock in both languages (the app's en-GB and de times).
import { useState } from 'react';
import { useI18n } from '../i18n/index.js';
import { Field } from './ui.js';

const SEPARATOR = { de: '.', en: '/' } as const;

/** `yyyy-mm-dd` → the language's `dd.mm.yyyy` / `dd/mm/yyyy`; anything else as it is. */
export function formatDay(iso: string, lang: 'de' | 'en'): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return m ? [m[3], m[2], m[1]].join(SEPARATOR[lang]) : iso;
}

/** The language's day (1- or 2-digit day and month, 4-digit year) → `yyyy-mm-dd`, or null when it is no real day. */
export function parseDay(text: string, lang: 'de' | 'en'): string | null {
  const sep = SEPARATOR[lang] === '.' ? '\\.' : '/';
  const m = new RegExp(`^\\s*(\\d{1,2})${sep}(\\d{1,2})${sep}(\\d{4})\\s*$`).exec(text);
  if (!m) return null;
  const [d, mo, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** `h:mm` / `hh:mm` on the 24-hour clock → `[hours, minutes]`, or null when it is no time of day. */
export function parseTime(text: string): [number, number] | null {
  const m = /^\s*(\d{1,2}):(\d{2})\s*$/.exec(text);
  if (!m) return null;
  const [h, min] = [Number(m[1]), Number(m[2])];
  return h < 24 && min < 60 ? [h, min] : null;
}

export function DayField({
  label,
  name,
  value,
  onChange,
  onValidity,
  error,
}: {
  label: string;
  name: string;
  value: string;
  onChange: (iso: string) => void;
  /** told, as the operator types, whether the text is a day (or empty): a form can hold back its submit */
  onValidity?: (valid: boolean) => void;
  /** the server's word on the value, shown when the text itself is a day */
  error?: string;
}) {
  const { t, lang } = useI18n();
  const language = lang === 'de' ? 'de' : 'en';
  const [text, setText] = useState(() => formatDay(value, language));
  const [shown, setShown] = useState({ value, language });
  // the field follows the URL (Back, a cleared filter) and the language, but keeps what is being typed
  if (shown.value !== value || shown.language !== language) {
    setShown({ value, language });
    if (parseDay(text, language) !== value || shown.language !== language) setText(formatDay(value, language));
  }
  const invalid = text.trim() !== '' && parseDay(text, language) === null;
  const pattern = t('common.dayPattern');
  return (
    <Field label={label} optional hint={pattern} error={invalid ? t('field.day', { pattern }) : error}>
      {(p) => (
        <input
          {...p}
          name={name}
          type="text"
          inputMode="numeric"
          autoComplete="off"
          placeholder={pattern}
          value={text}
          onChange={(e) => {
            const typed = e.target.value;
            setText(typed);
            const iso = typed.trim() === '' ? '' : parseDay(typed, language);
            if (iso !== null) onChange(iso);
            onValidity?.(iso !== null);
          }}
        />
      )}
    </Field>
  );
}
