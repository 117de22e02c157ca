// The admin web app's catalogues: the same keys in every language, the same {params} per key,
// and every SPEC §4 history summaryKey translated with the params the server sends.
import { describe, expect, it } from 'vitest';
import { en } from '../../admin-web/src/i18n/en.js';
import { de } from '../../admin-web/src/i18n/de.js';
import { catalogues, interpolate, translateSummary } from '../../admin-web/src/i18n/translate.js';

const SUMMARY_KEYS: Record<string, Record<string, unknown>> = {
  'history.sensed': { name: 'Ask for a quote' },
  'history.renamed': { from: 'Old name', to: 'New name' },
  'history.rescored.raised': { from: 5, to: 8 },
  'history.rescored.lowered': { from: 8, to: 5 },
  'history.contextRevised.current': {},
  'history.contextRevised.future': {},
  'history.contextRevised.both': {},
  'history.leadAssigned': { leadUserId: '7b0c…', leadName: 'Alice' },
  'history.leadUnassigned': {},
  'history.reassigned': { fromActorId: 'a', fromActorName: 'Org A', toActorId: 'b', toActorName: 'Org B' },
  'history.resolved': {},
  'history.dropped': {},
  'history.reopened': {},
  'history.revived': {},
  'history.discarded': {},
};

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('i18n catalogues', () => {
  it('English and German have exactly the same keys', () => {
    expect(Object.keys(de).sort()).toEqual(Object.keys(en).sort());
  });

  it('every message is non-empty and uses the same {params} in both languages', () => {
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      expect(en[key].trim(), key).not.toBe('');
      expect(de[key].trim(), key).not.toBe('');
      expect(placeholders(de[key]), key).toEqual(placeholders(en[key]));
    }
  });

  it.each(Object.entries(SUMMARY_KEYS))('translates %s in both languages with only the params the server sends', (key, params) => {
    for (const lang of ['en', 'de'] as const) {
      const catalogue: Record<string, string> = catalogues[lang];
      expect(catalogue[key], `${lang} ${key}`).toBeTypeOf('string');
      for (const p of placeholders(catalogue[key])) expect(Object.keys(params), `${lang} ${key} {${p}}`).toContain(p);
      const text = translateSummary(lang, key, params, 'FALLBACK');
      expect(text).not.toBe('FALLBACK');
      expect(text).not.toMatch(/\{\w+\}/);
      for (const p of placeholders(catalogue[key])) expect(text).toContain(String(params[p]));
    }
  });

  it('interpolates params and renders history with the right words per language', () => {
    expect(interpolate('Score raised from {from} to {to}', { from: 5, to: 8 })).toBe('Score raised from 5 to 8');
    expect(translateSummary('en', 'history.rescored.raised', { from: 5, to: 8 }, 'x')).toBe('Score raised from 5 to 8');
    expect(translateSummary('de', 'history.rescored.raised', { from: 5, to: 8 }, 'x')).toBe('Bewertung von 5 auf 8 erhöht');
    expect(translateSummary('de', 'history.reassigned', SUMMARY_KEYS['history.reassigned'], 'x')).toBe('Von Org A zu Org B verschoben');
  });

  it('falls back to the server summary for an unknown key or missing params', () => {
    expect(translateSummary('de', 'history.somethingNew', {}, 'Something new')).toBe('Something new');
    expect(translateSummary('de', null, {}, 'No key')).toBe('No key');
    expect(translateSummary('en', 'history.renamed', { from: 'A' }, 'Renamed from "A" to "B"')).toBe('Renamed from "A" to "B"');
  });
});
