// The interactive API reference (/api/v1/docs): Swagger UI served by the service itself, under the strict
// Content-Security-Policy, with no request to another origin; a reader expands an operation, authorizes
// with an API key, tries it out and sees the live answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app.js';
import { client, seedUserWithKey } from '../support/clients.js';
import { launchBrowser, screenshot } from '../support/browser.js';

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let key: string;

beforeAll(async () => {
  browser = await launchBrowser();
  app = await startTestApp();
  const admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
  key = admin.key;
  const rest = client(app, key);
  const actor = await rest.post('/actors', { name: 'Org A', type: 'organization' });
  await rest.post('/tensions', { name: 'Tried from the docs', actorId: actor.body.id });
  context = await browser.newContext({ locale: 'en-US' });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.close();
});

interface Watch {
  problems: string[];
  foreign: string[];
}

/** Console errors, CSP violations and page errors, and every request to another origin. */
function watch(page: Page): Watch {
  const w: Watch = { problems: [], foreign: [] };
  const own = new URL(app.url).origin;
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content.Security.Policy|Refused to/i.test(m.text())) w.problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => w.problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith(own) && !r.url().startsWith('data:')) w.foreign.push(r.url());
  });
  return w;
}

describe('GET /api/v1/docs', () => {
  it('loads Swagger UI and its assets from this origin, every answer with the strict CSP, without a violation', async () => {
    const page = await context.newPage();
    const w = watch(page);
    // the browser reports violations as events too, also those that print nothing
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
    });
    const answers: { url: string; csp: string | null }[] = [];
    page.on('response', (r) => answers.push({ url: r.url(), csp: r.headers()['content-security-policy'] ?? null }));

    await page.goto(`${app.url}/api/v1/docs`);
    await page.locator('#operations-tensions-listTensions').waitFor();
    await expect.poll(() => page.locator('.opblock').count()).toBeGreaterThan(40);

    const docs = answers.find((a) => a.url === `${app.url}/api/v1/docs`)!;
    expect(docs.csp).toContain("script-src 'self'");
    expect(docs.csp).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js']) {
      expect(
        answers.map((a) => a.url),
        asset,
      ).toContain(`${app.url}/api/v1/docs/assets/${asset}`);
    }
    expect(answers.map((a) => a.url)).toContain(`${app.url}/api/v1/openapi.json`);
    expect(w.problems).toEqual([]);
    expect(w.foreign).toEqual([]);
    await page.close();
  }, 60_000);

  it('lets a reader authorize with a key and try GET /tensions', async () => {
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const w = watch(page);
    await page.goto(`${app.url}/api/v1/docs`);
    // rendering ~50 operations from a 1.4 MB bundle takes a while on a busy machine
    await page.locator('#operations-tensions-listTensions').waitFor({ timeout: 30_000 });

    await page.locator('button.authorize').first().click();
    const dialog = page.locator('.modal-ux');
    // the first scheme is bearer; its button is labelled "Apply credentials"
    await dialog.locator('input').first().fill(key);
    await dialog.getByRole('button', { name: 'Apply credentials' }).first().click();
    await dialog.locator('button.btn-done').first().click();

    const op = page.locator('#operations-tensions-listTensions');
    await op.locator('.opblock-summary').first().click();
    await expect.poll(() => op.locator('.opblock-description-wrapper').innerText()).toContain('a page at a time');
    await op.getByRole('button', { name: 'Try it out' }).click();
    await op.getByRole('button', { name: 'Execute' }).click();

    const live = op.locator('.live-responses-table');
    await expect.poll(() => live.locator('tr.response .response-col_status').first().innerText(), { timeout: 10_000 }).toBe('200');
    await expect.poll(() => live.locator('tr.response .response-col_description').first().innerText()).toContain('Tried from the docs');
    // the request went out with the key the reader entered
    await expect.poll(() => op.locator('.curl-command').innerText()).toContain(`Authorization: Bearer ${key}`);
    await screenshot(page, 'api-docs-try-it');
    expect(w.problems).toEqual([]);
    expect(w.foreign).toEqual([]);
    await page.close();
  }, 60_000);

  it('keeps a script-free reference for readers without JavaScript', async () => {
    const page = await browser.newPage({ javaScriptEnabled: false });
    await page.goto(`${app.url}/api/v1/docs`);
    await page.locator('noscript a[href="/api/v1/docs/reference"]').waitFor({ state: 'attached' });
    await page.goto(`${app.url}/api/v1/docs/reference`);
    await expect.poll(() => page.locator('section#listTensions h3').innerText()).toContain('/api/v1/tensions');
    await page.close();
  });
});
