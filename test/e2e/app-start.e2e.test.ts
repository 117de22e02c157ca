// The app's start without a waterfall (issue 36): the tensions list is requested while `me` is still
// unanswered (the browser holds `me` back here until the list's request is seen), once, and the page shows
// that answer; a signed-out visitor still lands on sign-in, and no list flashes before it.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page, Request, Route } from 'playwright-core';
import { ADMIN } from '../support/app.js';
import { client, seedUserWithKey } from '../support/clients.js';
import { browserSuite } from '../support/browser.js';

const suite = browserSuite({ rateLimitPerMinute: 0 });

beforeAll(async () => {
  const api = client(suite.app, (await seedUserWithKey(suite.app, { grants: ['*'], name: 'Seeder' })).key);
  const actorId = (await api.post('/actors', { name: 'Harbour', type: 'organization' })).body.id;
  for (const name of ['Cranes idle', 'Invoices late', 'Bollards rusting']) expect((await api.post('/tensions', { name, actorId })).status).toBe(201);
});

/** The operation a GraphQL request names (GET or POST), or null for any other request. */
function operationOf(req: Request): string | null {
  const url = new URL(req.url());
  if (url.pathname !== '/graphql') return null;
  const body: { operationName?: string; query?: string } =
    req.method() === 'GET'
      ? { operationName: url.searchParams.get('operationName') ?? undefined, query: url.searchParams.get('query') ?? '' }
      : JSON.parse(req.postData() ?? '{}');
  return body.operationName ?? /^\s*(?:query|mutation|subscription)\s+(\w+)/.exec(body.query ?? '')?.[1] ?? null;
}

/**
 * Holds every `Me` answer back until a `Tensions` request has been made (at most 5 s): the list can only be
 * asked for meanwhile if the app does not wait for `me`. Returns what it saw.
 */
async function holdMeUntilList(page: Page) {
  const seen = { tensionsRequests: 0, listAskedWhileMeHeld: false };
  let listAsked: () => void = () => {};
  const listRequested = new Promise<void>((r) => (listAsked = r));
  page.on('request', (req) => {
    if (operationOf(req) !== 'Tensions') return;
    seen.tensionsRequests++;
    listAsked();
  });
  await page.route('**/graphql**', async (route: Route) => {
    if (operationOf(route.request()) !== 'Me') return route.continue();
    const inTime = await Promise.race([listRequested.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5_000))]);
    if (inTime) seen.listAskedWhileMeHeld = true;
    await route.continue();
  });
  return seen;
}

const shownNames = (page: Page) => page.locator('table tbody tr a.row-link').allTextContents();

describe("the app's start", () => {
  it('asks for the list beside me, not after it, once, and shows it (a filtered URL and the bare /)', async () => {
    const page = await suite.signIn();
    await page.locator('table tbody tr').first().waitFor();
    for (const [path, names] of [
      ['/tensions?q=late', ['Invoices late']],
      ['/', ['Bollards rusting', 'Cranes idle', 'Invoices late']],
    ] as const) {
      const seen = await holdMeUntilList(page);
      await page.goto(`${suite.app.url}${path}`);
      await expect.poll(async () => (await shownNames(page)).sort(), { timeout: 15_000 }).toEqual(names);
      // nothing more comes: the page took the answer the start asked for
      await page.waitForTimeout(1_000);
      expect(seen, path).toEqual({ tensionsRequests: 1, listAskedWhileMeHeld: true });
      await page.unroute('**/graphql**');
      page.removeAllListeners('request');
    }
  }, 90_000);

  it('a signed-out visitor lands on sign-in with no list shown before it, and after signing in sees the list', async () => {
    const context = await suite.browser.newContext({ viewport: { width: 1280, height: 900 } });
    // records every heading and table the page ever shows, however briefly
    await context.addInitScript(() => {
      const w = window as unknown as { shown: string[] };
      w.shown = [];
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('h1, table')) {
          const text = `${el.tagName}:${el.textContent?.trim().slice(0, 40)}`;
          if (!w.shown.includes(text)) w.shown.push(text);
        }
      }).observe(document, { childList: true, subtree: true, characterData: true });
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const refused: string[] = [];
    page.on('response', async (res) => {
      if (operationOf(res.request()) !== 'Tensions') return;
      const body = await res.json().catch(() => null);
      refused.push(body?.errors?.[0]?.extensions?.code ?? 'answered');
    });
    await page.goto(`${suite.app.url}/tensions`);
    await page.locator('input[type=email]').waitFor();
    // the list was asked for at the start and refused; the visitor saw only the sign-in page
    await expect.poll(() => refused, { timeout: 10_000 }).toEqual(['UNAUTHENTICATED']);
    await page.waitForTimeout(500);
    const shown = await page.evaluate(() => (window as unknown as { shown: string[] }).shown);
    expect(shown.filter((s) => s.startsWith('TABLE') || /Tensions/.test(s))).toEqual([]);
    expect(new URL(page.url()).pathname).toBe('/tensions');
    await page.locator('input[type=email]').fill(ADMIN.email);
    await page.locator('input[type=password]').fill(ADMIN.password);
    await page.locator('button[type=submit]').click();
    await expect.poll(async () => (await shownNames(page)).length, { timeout: 15_000 }).toBe(3);
  }, 60_000);
});
