// The operator dashboard (issue 36) in English and German: its figures equal what the API answers for the same
// period (the tension list's counts, the dashboard queries), its charts have their tables, axe finds nothing
// serious, and the charting library is not in the first load (the dashboard is a chunk of its own).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { client, seedUserWithKey } from '../support/clients.js';
import { browserSuite, screenshot } from '../support/browser.js';
import { seriousViolations } from '../support/axe.js';

let api: ReturnType<typeof client>;

const suite = browserSuite();

beforeAll(async () => {
  api = client(suite.app, (await seedUserWithKey(suite.app, { grants: ['*'], name: 'Seeder' })).key);
  const actor = (await api.post('/actors', { name: 'Harbour Co', type: 'organization' })).body.id as string;
  const other = (await api.post('/actors', { name: 'Rail Ltd', type: 'organization' })).body.id as string;
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) {
    const r = await api.post('/tensions', { name: `Dashboard tension ${i}`, actorId: i < 5 ? actor : other, score: (i % 3) + 3 });
    ids.push(r.body.tension.id);
  }
  await api.post(`/tensions/${ids[0]}/resolve`, {});
  await api.post(`/tensions/${ids[1]}/resolve`, {});
  await api.post(`/tensions/${ids[2]}/drop`, {});
  // two failed sign-ins today
  for (const password of ['wrong-1', 'wrong-2']) {
    await fetch(`${suite.app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'intruder@test.example', password }),
    });
  }
});

const signedIn = (lang: 'en' | 'de', dark = false): Promise<Page> =>
  suite.signIn({ locale: lang === 'de' ? 'de-DE' : 'en-US', colorScheme: dark ? 'dark' : 'light' });

/** The rows of the table behind a chart (opened by its disclosure), cell texts per row. */
async function tableOf(page: Page, chartTitle: string): Promise<string[][]> {
  const figure = page.locator('figure.chart', { has: page.locator('figcaption', { hasText: chartTitle }) });
  await figure.locator('summary').click();
  return figure.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())));
}

const T = {
  en: {
    nav: 'Dashboard',
    alive: 'Alive',
    flows: 'Created, resolved and dropped per week',
    scores: 'Alive tensions by score',
    signIns: 'Failed sign-ins per day',
  },
  de: {
    nav: 'Übersicht',
    alive: 'Lebendig',
    flows: 'Erfasst, gelöst und verworfen je Woche',
    scores: 'Lebendige Spannungen nach Bewertung',
    signIns: 'Fehlgeschlagene Anmeldungen je Tag',
  },
};

describe('the dashboard', () => {
  for (const lang of ['en', 'de'] as const) {
    it(`shows the figures the API answers for the same period (${lang})`, async () => {
      const page = await signedIn(lang);
      // the first load holds no charting code: the dashboard's chunk arrives when it is opened
      const firstScripts = await page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .map((e) => e.name)
          .filter((n) => n.endsWith('.js')),
      );
      const firstCode = await Promise.all(firstScripts.map((u) => fetch(u).then((r) => r.text())));
      expect(firstCode.some((code) => code.includes('u-legend'))).toBe(false);

      await page.getByRole('navigation').getByRole('link', { name: T[lang].nav }).click();
      await page.getByRole('heading', { level: 1, name: T[lang].nav }).waitFor();
      await page.getByTestId('tile-alive').waitFor();
      const later = await page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .map((e) => e.name)
          .filter((n) => n.endsWith('.js')),
      );
      expect(later.length).toBeGreaterThan(firstScripts.length);

      const api1 = (
        await api.gql(`{ dashboardTensions(weeks: 12) { byState { state count } aliveByScore { score count } weeks { sensed resolved dropped } } }`)
      ).body.data.dashboardTensions;
      const listed = async (state: string) => (await api.gql(`{ tensions(state: ${state}, limit: 100) { data { id } } }`)).body.data.tensions.data.length;
      const tile = (state: string) => page.getByTestId(`tile-${state}`).locator('.tile-value').textContent();
      for (const state of ['alive', 'resolved', 'stale']) {
        const count = api1.byState.find((s: { state: string }) => s.state === state)?.count ?? 0;
        expect(await tile(state)).toBe(String(count));
        expect(count).toBe(await listed(state));
      }
      expect(await tile('alive')).toBe('4');

      const flows = await tableOf(page, T[lang].flows);
      expect(flows).toHaveLength(12);
      const thisWeek = api1.weeks[11];
      expect(flows[11].slice(1, 4)).toEqual([String(thisWeek.sensed), String(thisWeek.resolved), String(thisWeek.dropped)]);
      expect(flows[11].slice(1, 4)).toEqual(['7', '2', '1']);

      const scores = await tableOf(page, T[lang].scores);
      expect(scores.map((r) => Number(r[1]))).toEqual(
        Array.from({ length: 10 }, (_, i) => api1.aliveByScore.find((s: { score: number }) => s.score === i + 1)?.count ?? 0),
      );

      const failures = (await api.gql('{ dashboardSignInFailures(days: 14) { days { failed } } }')).body.data.dashboardSignInFailures.days;
      const signIns = await tableOf(page, T[lang].signIns);
      expect(signIns.map((r) => Number(r[1]))).toEqual(failures.map((d: { failed: number }) => d.failed));
      expect(Number(signIns[13][1])).toBeGreaterThanOrEqual(2);

      // the busiest actor, linked to its tensions
      await page.getByRole('link', { name: 'Harbour Co' }).waitFor();
      await screenshot(page, `dashboard-${lang}`);
    }, 120_000);
  }

  it('has no serious or critical accessibility violation, light and dark', async () => {
    for (const dark of [false, true]) {
      const page = await signedIn('en', dark);
      await page.goto(`${suite.app.url}/dashboard`);
      await page.getByTestId('tile-alive').waitFor();
      await page.locator('figure.chart summary').first().click();
      expect(await seriousViolations(page)).toEqual([]);
    }
  }, 120_000);
});
