// Days typed in the app's language (issue 36): the Activity page's From/To take dd.mm.yyyy in German and
// dd/mm/yyyy in English (a native date input would show the browser's mm/dd/yyyy), put the ISO day in the URL,
// and say in words when a day does not exist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app.js';
import { ensureWebBuild, launchBrowser, signInAdmin } from '../support/browser.js';

let app: TestApp;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  ensureWebBuild();
  browser = await launchBrowser();
  app = await startTestApp();
});

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await app?.close();
});

describe('date inputs in the app language', () => {
  it('German: TT.MM.JJJJ, the ISO day in the URL, an impossible day refused in words', async () => {
    // an American browser asking for German: the day format follows the app, not the browser
    const page = await signInAdmin(browser, app.url, contexts, { locale: 'en-US', timeoutMs: 20_000 });
    await page.evaluate(() => localStorage.setItem('market-admin.language', 'de'));
    await page.goto(`${app.url}/activity?to=2026-11-30`);
    const from = page.getByRole('textbox', { name: /^Von/ });
    const to = page.getByRole('textbox', { name: /^Bis/ });
    await from.waitFor();
    expect(await from.getAttribute('placeholder')).toBe('TT.MM.JJJJ');
    expect(await to.inputValue()).toBe('30.11.2026');
    await from.fill('3.11.2026');
    await page.waitForURL(/from=2026-11-03/);
    await from.fill('31.02.2026');
    await page.getByText('Bitte ein Datum als TT.MM.JJJJ eingeben.').waitFor();
    expect(new URL(page.url()).searchParams.get('from')).toBe('2026-11-03');
    await from.fill('');
    await page.waitForURL((u) => !u.searchParams.has('from'));
  }, 90_000);
});
