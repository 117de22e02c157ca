// The tensions list's search box at scale (issue 37): typing a word quickly costs one list request, made after
// the pause, and the rows shown are the last query's; an older search whose answer arrives late (held back
// here by the browser's request routing) never replaces the rows of a newer one.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page, Request, Route } from 'playwright-core';
import { client, seedUserWithKey } from '../support/clients.js';
import { browserSuite } from '../support/browser.js';

const suite = browserSuite({ rateLimitPerMinute: 0 });

beforeAll(async () => {
  const api = client(suite.app, (await seedUserWithKey(suite.app, { grants: ['*'], name: 'Seeder' })).key);
  const actorId = (await api.post('/actors', { name: 'Harbour', type: 'organization' })).body.id;
  for (const name of ['Quayside cranes idle', 'Quayside invoices late', 'Bollards rusting', 'Pilot boats delayed']) {
    expect((await api.post('/tensions', { name, actorId })).status).toBe(201);
  }
});

/** The variables of a request for the list's own query (`Tensions`), or null for any other request. */
function listQuery(req: Request): { q?: string | null } | null {
  const url = new URL(req.url());
  if (url.pathname !== '/graphql') return null;
  let body: { operationName?: string; query?: string; variables?: { q?: string | null } };
  if (req.method() === 'GET') {
    body = { operationName: url.searchParams.get('operationName') ?? undefined, query: url.searchParams.get('query') ?? '' };
    const vars = url.searchParams.get('variables');
    body.variables = vars ? JSON.parse(vars) : {};
  } else {
    body = JSON.parse(req.postData() ?? '{}');
  }
  const named = body.operationName === 'Tensions' || /query Tensions\b/.test(body.query ?? '');
  return named ? (body.variables ?? {}) : null;
}

const shownNames = (page: Page) => page.locator('table tbody tr a.row-link').allTextContents();

describe('tensions list search', () => {
  it('typing a word quickly makes one list request after the pause, and the rows match the last text', async () => {
    const page = await suite.signIn();
    await page.locator('table tbody tr').first().waitFor();
    const searches: (string | null | undefined)[] = [];
    page.on('request', (req) => {
      const vars = listQuery(req);
      if (vars) searches.push(vars.q);
    });
    // 40 ms between keys, well inside the pause, as a person types: on the page's clock, which the test moves,
    // so the keys are 40 ms apart for the page on a machine of any speed (a loaded one once spaced two keys
    // wider than the pause); then the clock moves past the pause.
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 1_000);
    const box = page.getByRole('searchbox', { name: 'Search' });
    for (const key of 'quayside') {
      await box.press(key);
      await page.clock.runFor(40);
    }
    expect(searches).toEqual([]);
    await page.clock.runFor(300);
    await page.clock.resume();
    await expect.poll(async () => (await shownNames(page)).sort(), { timeout: 10_000 }).toEqual(['Quayside cranes idle', 'Quayside invoices late']);
    // nothing else comes later
    await page.waitForTimeout(1_000);
    expect(searches).toEqual(['quayside']);
    expect(new URL(page.url()).searchParams.get('q')).toBe('quayside');
  }, 60_000);

  it('an older search answered late never replaces the rows of a newer one', async () => {
    const page = await suite.signIn();
    await page.locator('table tbody tr').first().waitFor();
    let heldBack = 0;
    const held: Promise<void>[] = [];
    await page.route('**/graphql**', async (route: Route) => {
      const vars = listQuery(route.request());
      if (vars?.q !== 'bollards') return route.continue();
      heldBack++;
      const answer = (async () => {
        // the server answers at once; the browser sees it 2.5 s later, after the newer search's answer
        const res = await route.fetch();
        await new Promise((r) => setTimeout(r, 2_500));
        try {
          await route.fulfill({ response: res });
        } catch {
          // the page cancelled the request meanwhile: the fulfilment has nowhere to go
        }
      })();
      held.push(answer);
      await answer;
    });
    const box = page.getByRole('searchbox', { name: 'Search' });
    await box.fill('bollards');
    await expect.poll(() => heldBack, { timeout: 10_000 }).toBe(1);
    await box.fill('pilot');
    await expect.poll(() => shownNames(page), { timeout: 10_000 }).toEqual(['Pilot boats delayed']);
    await Promise.all(held);
    // well after the older answer was delivered (or dropped): still the newer search's rows and text
    await page.waitForTimeout(500);
    expect(await shownNames(page)).toEqual(['Pilot boats delayed']);
    expect(await box.inputValue()).toBe('pilot');
    expect(new URL(page.url()).searchParams.get('q')).toBe('pilot');
  }, 60_000);
});
