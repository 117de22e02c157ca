// Pure translation helpers: the catalogues, `{param}` interpolation and history summaries.
import { en, type MessageKey } from './en.js';
import { de } from './de.js';

export const catalogues = { en, de } as const;
export type Language = keyof typeof catalogues;
export const LANGUAGES: Language[] = ['en', 'de'];

export type Params = Record<string, unknown>;

const PLURAL = /\{(\w+), plural,((?:\s*(?:=\d+|zero|one|two|few|many|other)\s*\{[^{}]*\})+)\s*\}/g;
const FORM = /(=\d+|zero|one|two|few|many|other)\s*\{([^{}]*)\}/g;

/** ICU-style `{count, plural, one {# item} other {# items}}`, chosen by the language's own plural rules. */
function plurals(template: string, params: Params, lang: Language): string {
  return template.replace(PLURAL, (whole, name: string, body: string) => {
    const n = Number(params[name]);
    if (!Number.isFinite(n)) return whole;
    const forms = new Map([...body.matchAll(FORM)].map((m) => [m[1], m[2]]));
    const form = forms.get(`=${n}`) ?? forms.get(new Intl.PluralRules(lang).select(n)) ?? forms.get('other') ?? '';
    return form.replace(/#/g, new Intl.NumberFormat(lang).format(n));
  });
}

/** Replaces `{name}` with params.name (after plural forms); a missing param leaves the placeholder visible. */
export function interpolate(template: string, params: Params = {}, lang: Language = 'en'): string {
  return plurals(template, params, lang).replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    if (value === undefined || value === null) return whole;
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  });
}

export function isMessageKey(key: string): key is MessageKey {
  return Object.prototype.hasOwnProperty.call(en, key);
}

/** A history entry's text: its summaryKey translated with summaryParams, else the server's summary. */
export function translateSummary(lang: Language, key: string | null | undefined, params: unknown, fallback: string): string {
  if (!key || !isMessageKey(key)) return fallback;
  const p = params && typeof params === 'object' ? (params as Params) : {};
  const text = interpolate(catalogues[lang][key], p);
  return /\{\w+\}/.test(text) ? fallback : text;
}
