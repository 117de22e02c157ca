// Pure translation helpers: the catalogues, `{param}` interpolation and history summaries.
import { en, type MessageKey } from './en.js';
import { de } from './de.js';

export const catalogues = { en, de } as const;
export type Language = keyof typeof catalogues;
export const LANGUAGES: Language[] = ['en', 'de'];

export type Params = Record<string, unknown>;

/** Replaces `{name}` with params.name; a missing param leaves the placeholder visible. */
export function interpolate(template: string, params: Params = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (params[name] === undefined || params[name] === null ? whole : String(params[name])));
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
