// Live updates in the admin web app: a tension's page and the tensions list change when someone else
// changes a tension through REST, without a reload; the "live" badge shows the stream, and the page
// reconnects after a network drop (and misses nothing meanwhile).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN, startTestApp, type TestApp } from '../support/app.js';
import { client, seedUserWithKey } from '../support/clients.js';
import { ensureWebBuild, launchBrowser, screenshot } from '../support/browser.js';
import { newActor, newTension } from '../support/tensions.js';
import { closeFeedHub } from '../../server/application/events/feed-hub.js';

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
    await closeFeedHub(app.db.orm);
    expect((await c.post(`/tensions/${t.id}/rename`, { name: 'Changed while offline' })).status).toBe(200);
    await page.getByRole('heading', { name: 'Changed while offline' }).waitFor({ timeout: 40_000 });
    await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
  }, 90_000);

  it('the tensions list shows a tension sensed through REST', async () => {
    await page.goto(`${app.url}/tensions`);
    await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
    await newTension(c, { name: 'Appears live', actorId, score: 10 });
    await page.getByRole('link', { name: 'Appears live' }).waitFor();
  });
});
