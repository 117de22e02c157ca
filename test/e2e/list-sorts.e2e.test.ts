// The tensions list sorted by state, actor and lead (issue 36): their column headers sort (in the URL, with
// `aria-sort`), the tensions without a lead come last either way, and the sort control names the new orders
// in English and German.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { client, seedUserWithKey } from '../support/clients.js';
import { insertUser } from '../support/tensions.js';
import { browserSuite } from '../support/browser.js';

const ids = new Map<string, string>();

const suite = browserSuite({ rateLimitPerMinute: 0 });

beforeAll(async () => {
  const api = client(suite.app, (await seedUserWithKey(suite.app, { grants: ['*'], name: 'Seeder' })).key);
  const harbour = (await api.post('/actors', { name: 'Harbour', type: 'organization' })).body.id;
  const anchorage = (await api.post('/actors', { name: 'anchorage', type: 'organization' })).body.id;
  const berit = await insertUser(suite.app, { name: 'Berit' });
  const ahmed = await insertUser(suite.app, { name: 'Ahmed' });
  const tensions = [
    { name: 'Cranes idle', actorId: harbour, score: 9 },
    { name: 'Bollards rusting', actorId: harbour, score: 5, leadUserId: berit },
    { name: 'Tug schedule slips', actorId: anchorage, score: 3, leadUserId: ahmed },
  ];
  for (const t of tensions) {
    const created = await api.post('/tensions', t);
    expect(created.status).toBe(201);
    ids.set(t.name, created.body.tension.id);
  }
});

/** Within one actor the tie-breaker is the tension's id (random UUIDs): Harbour's two tensions in id order. */
const harbourById = (dir: 1 | -1) => ['Cranes idle', 'Bollards rusting'].sort((a, b) => dir * (ids.get(a)! < ids.get(b)! ? -1 : 1));

const shownNames = (page: Page) => page.locator('table tbody tr a.row-link').allTextContents();

describe('tensions list sorted by state, actor and lead', () => {
  it('the Actor and Lead headers sort both ways, no lead last', async () => {
    const page = await suite.signIn();
    await page.getByRole('link', { name: 'Cranes idle' }).waitFor();
    await page.getByRole('button', { name: /^Actor/ }).click();
    await page.waitForURL(/sort=actor/);
    await expect.poll(() => shownNames(page)).toEqual(['Tug schedule slips', ...harbourById(1)]);
    expect(await page.getByRole('columnheader', { name: /^Actor/ }).getAttribute('aria-sort')).toBe('ascending');
    await page.getByRole('button', { name: /^Actor/ }).click();
    await page.waitForURL(/sort=-actor/);
    await expect.poll(() => shownNames(page)).toEqual([...harbourById(-1), 'Tug schedule slips']);
    expect(await page.getByRole('columnheader', { name: /^Actor/ }).getAttribute('aria-sort')).toBe('descending');

    await page.getByRole('button', { name: /^Lead/ }).click();
    await page.waitForURL(/sort=lead/);
    await expect.poll(() => shownNames(page)).toEqual(['Tug schedule slips', 'Bollards rusting', 'Cranes idle']);
    await page.getByRole('button', { name: /^Lead/ }).click();
    await page.waitForURL(/sort=-lead/);
    await expect.poll(() => shownNames(page)).toEqual(['Bollards rusting', 'Tug schedule slips', 'Cranes idle']);

    await page.getByRole('button', { name: /^State/ }).click();
    await page.waitForURL(/sort=state/);
    expect(await page.getByRole('columnheader', { name: /^State/ }).getAttribute('aria-sort')).toBe('ascending');
    await expect.poll(() => shownNames(page)).toEqual(['Cranes idle', 'Bollards rusting', 'Tug schedule slips']);
  });

  it('the sort control offers the new orders, in English and in German', async () => {
    const page = await suite.signIn();
    const sort = page.getByLabel('Sort by');
    await sort.selectOption({ label: 'Lead, Z–A' });
    await page.waitForURL(/sort=-lead/);
    await expect.poll(() => shownNames(page)).toEqual(['Bollards rusting', 'Tug schedule slips', 'Cranes idle']);
    await page.getByLabel('Language').selectOption('de');
    const options = await page.getByLabel('Sortieren nach').locator('option').allTextContents();
    expect(options).toEqual(expect.arrayContaining(['Zustand, lebendig zuerst', 'Akteur, A–Z', 'Akteur, Z–A', 'Verantwortlich, Z–A']));
    await page.getByLabel('Sprache').selectOption('en');
  });
});
