// The admin web app's catalogues: the same keys in every language, the same {params} per key,
// and every SPEC §4 history summaryKey (of every event type) translated with the params the server sends.
import { describe, expect, it } from 'vitest';
import { en } from '../../admin-web/src/i18n/en.js';
import { de } from '../../admin-web/src/i18n/de.js';
import { catalogues, interpolate, translateSummary } from '../../admin-web/src/i18n/translate.js';
import { fieldErrorText, fieldLabel } from '../../admin-web/src/lib/refusals.js';
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES } from '../../server/application/audit/audit.js';
import { summarize } from '../../server/domain/tension.history.js';
import type { TensionEvent, TensionEventType } from '../../server/domain/tension.types.js';

/**
 * Events of every type, one for each summary it can read as. Keyed by the type, so an event type added to
 * the domain without one here fails to compile; the keys and params below are the server's own (`summarize`).
 */
const SAMPLE_EVENTS: { [K in TensionEventType]: Extract<TensionEvent, { type: K }>[] } = {
  TensionSensed: [
    {
      type: 'TensionSensed',
      data: {
        id: 't1',
        name: 'Ask for a quote',
        currentContext: null,
        potentialFuture: null,
        score: 5,
        state: 'alive',
        actorId: 'a',
        actorName: 'Org A',
        leadUserId: null,
        leadName: null,
      },
    },
  ],
  TensionRenamed: [{ type: 'TensionRenamed', data: { name: 'New name', previousName: 'Old name' } }],
  TensionRescored: [
    { type: 'TensionRescored', data: { score: 8, previousScore: 5 } },
    { type: 'TensionRescored', data: { score: 5, previousScore: 8 } },
  ],
  TensionContextRevised: [
    { type: 'TensionContextRevised', data: { currentContext: 'now', previousCurrentContext: null } },
    { type: 'TensionContextRevised', data: { potentialFuture: 'later', previousPotentialFuture: null } },
    { type: 'TensionContextRevised', data: { currentContext: 'now', previousCurrentContext: null, potentialFuture: 'later', previousPotentialFuture: null } },
  ],
  TensionLeadAssigned: [
    { type: 'TensionLeadAssigned', data: { leadUserId: '7b0c…', leadName: 'Alice', previousLeadUserId: null, previousLeadName: null } },
    { type: 'TensionLeadAssigned', data: { leadUserId: '7b0c…', leadName: 'Alice', previousLeadUserId: '9d1e…', previousLeadName: 'Bob' } },
  ],
  TensionLeadUnassigned: [{ type: 'TensionLeadUnassigned', data: { previousLeadUserId: '7b0c…' } }],
  TensionReassigned: [{ type: 'TensionReassigned', data: { actorId: 'b', actorName: 'Org B', previousActorId: 'a', previousActorName: 'Org A' } }],
  TensionResolved: [{ type: 'TensionResolved', data: {} }],
  TensionDropped: [{ type: 'TensionDropped', data: {} }],
  TensionReopened: [{ type: 'TensionReopened', data: {} }],
  TensionRevived: [{ type: 'TensionRevived', data: {} }],
  TensionDiscarded: [{ type: 'TensionDiscarded', data: {} }],
};

/** Every SPEC §4 summaryKey the server sends, with the params it sends along. */
const SUMMARY_KEYS: Record<string, Record<string, unknown>> = Object.fromEntries(
  Object.values(SAMPLE_EVENTS)
    .flat()
    .map((event) => summarize(event))
    .map((s) => [s.summaryKey, s.summaryParams]),
);

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

  it('labels every audit action and target type the server lists (the Activity page reads the lists from the API)', () => {
    for (const lang of ['en', 'de'] as const) {
      const catalogue: Record<string, string> = catalogues[lang];
      for (const action of AUDIT_ACTIONS) expect(catalogue[`audit.action.${action}`], `${lang} ${action}`).toBeTypeOf('string');
      for (const type of AUDIT_TARGET_TYPES) expect(catalogue[`audit.target.${type}`], `${lang} ${type}`).toBeTypeOf('string');
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

  it('chooses plural forms by each language\'s rules, never "(s)" or "(en)"', () => {
    const en1 = catalogues.en['actors.delete.body'];
    expect(interpolate(en1, { count: 1 }, 'en')).toMatch(/^This discards 1 tension of this actor\./);
    expect(interpolate(en1, { count: 3 }, 'en')).toMatch(/^This discards 3 tensions of this actor\./);
    expect(interpolate(en1, { count: 1200 }, 'en')).toMatch(/^This discards 1,200 tensions/);
    const de1 = catalogues.de['actors.delete.body'];
    expect(interpolate(de1, { count: 1 }, 'de')).toMatch(/^Dabei wird 1 Spannung dieses Akteurs verworfen\./);
    expect(interpolate(de1, { count: 0 }, 'de')).toMatch(/^Dabei werden 0 Spannungen/);
    expect(interpolate(de1, { count: 1200 }, 'de')).toMatch(/^Dabei werden 1\.200 Spannungen/);
    expect(interpolate('{n, plural, =0 {none} one {# item} other {# items}}', { n: 0 }, 'en')).toBe('none');
    for (const lang of ['en', 'de'] as const) {
      for (const text of Object.values(catalogues[lang])) expect(text).not.toMatch(/\((s|en|n|e)\)/);
    }
  });

  it('has a sentence in both languages for every refusal code of SPEC §7', () => {
    const codes = [
      'forbidden',
      'escalation_denied',
      'session_required',
      'csrf_required',
      'not_found',
      'actor_not_found',
      'user_not_found',
      'version_conflict',
      'invalid_transition',
      'email_taken',
      'code_taken',
      'last_admin',
      'system_role',
      'role_cycle',
      'role_in_use',
      'idempotency_in_progress',
      'payload_too_large',
      'not_an_agent',
      'actor_not_agent_type',
      'not_applicable',
      'idempotency_key_reused',
      'rate_limited',
      'unauthenticated',
      'invalid_credentials',
    ];
    for (const code of codes) {
      expect(Object.keys(en), code).toContain(`refusal.${code}`);
      expect(en[`refusal.${code}` as keyof typeof en]).not.toMatch(/`|_/);
    }
  });

  it('says a field error by its code and params, without paths or markup', () => {
    const t = (lang: 'en' | 'de') => (key: keyof typeof en, params?: Record<string, unknown>) => interpolate(catalogues[lang][key], params, lang);
    expect(fieldErrorText(t('en'), { path: 'name', message: 'name: must be at most 200 characters', code: 'too_long', params: { max: 200 } })).toBe(
      'At most 200 characters.',
    );
    expect(fieldErrorText(t('de'), { path: 'name', message: 'x', code: 'too_long', params: { max: 200 } })).toBe('Höchstens 200 Zeichen.');
    expect(fieldErrorText(t('de'), { path: 'name', message: 'x', code: 'too_short', params: { min: 1 } })).toBe('Pflichtfeld.');
    expect(fieldErrorText(t('en'), { path: 'password', message: 'x', code: 'too_short', params: { min: 12 } })).toBe('At least 12 characters.');
    // an older server without codes: its message, without the path or backticks
    expect(fieldErrorText(t('en'), { path: 'permissions.0', message: 'permissions.0: holding `*` is not allowed' })).toBe('holding * is not allowed');
    expect(fieldLabel(t('de'), 'input.name')).toBe('Name: ');
    expect(fieldLabel(t('en'), 'permissions.0')).toBe('Permissions: ');
    expect(fieldLabel(t('en'), 'somethingElse')).toBe('');
  });
});
