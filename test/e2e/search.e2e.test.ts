// Global search and keyboard (issue 36): ⌘K / Ctrl+K and `/` find a tension by a word of its name and open it,
// `?` lists the shortcuts, `g u` / `g t` move between lists; English and German; axe with the search open.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { client, seedUserWithKey } from '../support/clients.js';
import { browserSuite } from '../support/browser.js';
import { seriousViolations } from '../support/axe.js';

let tensionId = '';
let roleId = '';
let keyPrefix = '';
let keyOwnerId = '';

const suite = browserSuite();

beforeAll(async () => {
  const api = client(suite.app, (await seedUserWithKey(suite.app, { grants: ['*'], name: 'Seeder' })).key);
  const actor = (await api.post('/actors', { name: 'Harbour Co', type: 'organization' })).body.id;
  tensionId = (await api.post('/tensions', { name: 'Invoices from the quayside arrive late', actorId: actor })).body.tension.id;
  await api.post('/tensions', { name: 'Cranes idle overnight', actorId: actor });
  const bot = await seedUserWithKey(suite.app, { type: 'agent', grants: ['tensions:read'], name: 'Quay Bot' });
  keyOwnerId = bot.userId;
  keyPrefix = (await api.get(`/users/${bot.userId}/api-keys`)).body.data[0].prefix;
  roleId = (await api.post('/roles', { code: 'quay_auditor', name: 'Quay auditor', permissions: ['tensions:read'] })).body.id;
});

const EN_LABEL = 'Search tensions, users, actors, roles and API keys by name, email, key prefix or id';
const DE_LABEL = 'Spannungen, Benutzer, Akteure, Rollen und API-Schlüssel nach Name, E-Mail, Schlüsselpräfix oder ID suchen';

const signedIn = (lang: 'en' | 'de'): Promise<Page> => suite.signIn({ locale: lang === 'de' ? 'de-DE' : 'en-US' });

describe('global search', () => {
  it('Ctrl+K finds a tension by a word of its name and Enter opens it (en)', async () => {
    const page = await signedIn('en');
    await page.locator('body').click();
    await page.keyboard.press('Control+k');
    const box = page.getByRole('combobox', { name: EN_LABEL });
    await box.fill('quayside');
    await page.getByRole('option', { name: /Invoices from the quayside arrive late/ }).waitFor();
    expect(await page.getByRole('option', { name: /Cranes/ }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await box.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Invoices from the quayside arrive late' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/tensions/${tensionId}`);
  }, 60_000);

  it('`/` opens the search, `?` the shortcuts, `g u` and `g t` move (de)', async () => {
    const page = await signedIn('de');
    await page.locator('body').click();
    await page.keyboard.press('/');
    const box = page.getByRole('combobox', { name: DE_LABEL });
    await box.fill('Kräne');
    await page.getByText('Nichts gefunden.').waitFor();
    await box.fill('idle');
    await page.getByRole('option', { name: /Cranes idle overnight/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Cranes idle overnight' }).waitFor();
    await page.locator('body').click();
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Tastenkürzel' }).waitFor();
    await page.keyboard.press('Escape');
    await page.keyboard.press('g');
    await page.keyboard.press('u');
    await page.getByRole('heading', { level: 1, name: 'Benutzer' }).waitFor();
    await page.keyboard.press('g');
    await page.keyboard.press('t');
    await page.getByRole('heading', { level: 1, name: 'Spannungen' }).waitFor();
  }, 60_000);

  it('finds a role by its name and opens its page (de)', async () => {
    const page = await signedIn('de');
    await page.locator('body').click();
    await page.keyboard.press('Control+k');
    await page.getByRole('combobox', { name: DE_LABEL }).fill('auditor');
    await page.getByRole('option', { name: /Rolle Quay auditor · quay_auditor/ }).click();
    await page.waitForURL(`**/roles/${roleId}`);
  }, 60_000);

  it('finds an API key by the start of its prefix, says whose it is, and opens its user (en)', async () => {
    const page = await signedIn('en');
    await page.locator('body').click();
    await page.keyboard.press('Control+k');
    await page.getByRole('combobox', { name: EN_LABEL }).fill(keyPrefix.slice(0, 9));
    await page.getByRole('option', { name: `API key Quay Bot key · ${keyPrefix} · Quay Bot` }).click();
    await page.waitForURL(`**/users/${keyOwnerId}`);
    await page.getByRole('heading', { level: 1, name: 'Quay Bot' }).waitFor();
  }, 60_000);
});
