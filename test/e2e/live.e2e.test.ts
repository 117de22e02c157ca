// Live updates in the admin web app: a tension's page and the tensions list change when someone else
// changes a tension through REST, without a reload; the "live" badge shows the stream, and the page
// reconnects after a network drop (and misses nothing meanwhile).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN, startTestApp, type TestApp } from '../support/app.js';
import { client, seedUserWithKey } from '../support/clients.js';
import { ensureWebBuild, launchBrowser, screenshot } from '../support/browser.js';
import { newActor, newTension } from '../support/tensions.js';

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let c: ReturnType<typeof client>;
let actorId: string;

beforeAll(async () => {
  ensureWebBuild();
  browser = await launchBrowser();
  app = await startTestApp();
  c = client(app, (await seedUserWithKey(app, { grants: ['tensions:*', 'actors:*'] })).key);
  actorId = await newActor(c, 'Live org');
  context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(`${app.url}/`);
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Tensions' }).waitFor();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.close();
});

const liveBadge = () => page.getByTestId('live-indicator');

describe('admin web live updates', () => {
  it('a tension page shows a rename made through REST without a reload', async () => {
    const t = await newTension(c, { name: 'Before', actorId });
    await page.goto(`${app.url}/tensions/${t.id}`);
    await page.getByRole('heading', { name: 'Before' }).waitFor();
    await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
    expect(await liveBadge().textContent()).toContain('Live');
    const loads: string[] = [];
    page.on('framenavigated', (f) => loads.push(f.url()));
    expect((await c.post(`/tensions/${t.id}/rename`, { name: 'Renamed elsewhere' })).status).toBe(200);
    await page.getByRole('heading', { name: 'Renamed elsewhere' }).waitFor();
    expect(loads, 'no reload').toEqual([]);
    await screenshot(page, 'live-01-tension-renamed');
  });

  it('after a network drop it reconnects and shows what changed meanwhile', async () => {
    const t = await newTension(c, { name: 'Offline soon', actorId });
    await page.goto(`${app.url}/tensions/${t.id}`);
    await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
    // the server ends every open stream (as a restart or a dropped connection would), then a change lands
    await app.deps.feed.close();
    expect((await c.post(`/tensions/${t.id}/rename`, { name: 'Changed while offline' })).status).toBe(200);
    await page.getByRole('heading', { name: 'Changed while offline' }).waitFor({ timeout: 40_000 });
    await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
  }, 90_000);

  /** Holds the answer of the page's next RenameTension for `ms` after the server applied it, running `meanwhile` then. */
  async function holdRenameAnswer(ms: number, meanwhile: () => Promise<void> = async () => undefined) {
    await page.route('**/graphql', async (route) => {
      if (route.request().method() !== 'POST' || !String(route.request().postData()).includes('mutation RenameTension')) return route.fallback();
      const response = await route.fetch();
      await meanwhile();
      await new Promise((r) => setTimeout(r, ms));
      await route.fulfill({ response });
    });
  }

  async function renameInPage(name: string) {
    await page.getByRole('button', { name: 'Rename' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rename' });
    await dialog.getByLabel('Name').fill(name);
    await dialog.getByRole('button', { name: 'Save' }).click();
  }

  it("knows its own change on the feed by the answer's version, however late the answer comes: no reload", async () => {
    const t = await newTension(c, { name: 'Mine to rename', actorId });
    await page.goto(`${app.url}/tensions/${t.id}`);
    await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
    const queries: string[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      const query = url.searchParams.get('query') ?? String(r.postDataJSON()?.query ?? '');
      if (url.pathname === '/graphql') queries.push(query.match(/(mutation|query|subscription) (\w+)/)?.[2] ?? '?');
    });
    // the feed delivers the page's own event long before the answer (the old rule waited 1 s, then reloaded)
    await holdRenameAnswer(2_500);
    await renameInPage('Renamed by me');
    await page.getByRole('heading', { name: 'Renamed by me' }).waitFor();
    await page.waitForTimeout(1_000);
    await page.unroute('**/graphql');
    expect(queries).toEqual(['RenameTension']);
  });

  it("still shows another client's change that lands while the page's own command is unanswered", async () => {
    const t = await newTension(c, { name: 'Contested', actorId });
    await page.goto(`${app.url}/tensions/${t.id}`);
    await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
    // the page's rename is version 2; another client's, made before the page has its answer, version 3
    await holdRenameAnswer(1_000, async () => {
      expect((await c.post(`/tensions/${t.id}/rename`, { name: 'Renamed by someone else' })).status).toBe(200);
    });
    await renameInPage('Renamed by me first');
    await page.getByRole('heading', { name: 'Renamed by someone else' }).waitFor();
    await page.unroute('**/graphql');
    const history = page.getByRole('region', { name: 'History' });
    await history.getByText('Renamed from “Renamed by me first” to “Renamed by someone else”').waitFor();
    await history.getByText('Renamed from “Contested” to “Renamed by me first”').waitFor();
  });

  it('the tensions list shows a tension sensed through REST', async () => {
    await page.goto(`${app.url}/tensions`);
    await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
    await newTension(c, { name: 'Appears live', actorId, score: 10 });
    await page.getByRole('link', { name: 'Appears live' }).waitFor();
  });
});
