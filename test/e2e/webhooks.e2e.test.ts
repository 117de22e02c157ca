// The Webhooks page of the admin app (SPEC §14, issue 33): create an endpoint with its secret shown once
// (a receiver holding it verifies the test message), its status in words, edit its URL and types, send a
// test, the deliveries log with its status filter and Retry, rotate the secret; in English and German;
// axe finds nothing serious or critical on the list, the endpoint page and the secret dialog.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app.js';
import { PASSWORD, seedHuman } from '../support/sessions.js';
import { ensureWebBuild, launchBrowser, screenshot } from '../support/browser.js';
import { seriousViolations } from '../support/axe.js';
import { dispatcher, startReceiver, testClock, until, verifies, type Receiver } from '../support/webhooks.js';
import type { RunningDispatcher } from '../../server/application/webhooks/dispatcher.js';

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let run: RunningDispatcher;
let ok: Receiver;
let failing: Receiver;
const time = testClock();

beforeAll(async () => {
  ensureWebBuild();
  browser = await launchBrowser();
  app = await startTestApp({ webhookAllowPrivate: true }, { clock: time.clock });
  run = dispatcher(app.db.orm, { clock: time.clock });
  ok = await startReceiver();
  failing = await startReceiver(() => ({ status: 500, body: 'down' }));
  context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await run?.stop();
  await ok?.close();
  await failing?.close();
  await app?.close();
});

async function noSeriousViolations(include?: string) {
  expect(await seriousViolations(page, { include })).toEqual([]);
}

const deliveryRows = () => page.getByTestId('deliveries').locator('tbody tr');

describe('the Webhooks page', () => {
  it(
    'creates an endpoint (secret once, verified by the receiver), edits it, tests, filters and retries deliveries, rotates',
    { timeout: 180_000 },
    async () => {
      const operator = await seedHuman(app, ['webhooks:read', 'webhooks:write', 'events:read'], 'Integrator');
      await page.goto(`${app.url}/`);
      await page.getByLabel('Email').fill(operator.email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await page.getByText('No webhook endpoints.').waitFor();
      await noSeriousViolations();

      // Create: the form refuses an address that is not http(s) with the server's words under the field
      await page.getByRole('button', { name: '+ New endpoint' }).click();
      await page.getByLabel('URL').fill('ftp://example.com/hook');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('.field-error').first().waitFor();
      await page.getByLabel('URL').fill(ok.url);
      await page.getByLabel('Description').fill('CRM');
      await page.getByRole('button', { name: 'Save' }).click();
      const secretField = page.getByTestId('webhook-secret');
      await secretField.waitFor();
      const secret = await secretField.inputValue();
      expect(secret).toMatch(/^whsec_/);
      await noSeriousViolations('dialog[open]');
      await screenshot(page, 'webhooks-secret-once');
      // shown once: Escape does not close it, only the explicit button does
      await page.keyboard.press('Escape');
      await expect(secretField.isVisible()).resolves.toBe(true);
      await page.getByRole('button', { name: 'I have copied the secret' }).click();

      // The endpoint's page: enabled, every event, no delivery yet
      await page.getByRole('heading', { name: ok.url, level: 1 }).waitFor();
      await expect(page.getByTestId('webhook-status').textContent()).resolves.toContain('Enabled');
      await page.getByText('All events').first().waitFor();
      await page.getByText('No deliveries.').waitFor();

      // Send test: the receiver gets it, signed with the secret shown once; the log says so
      await page.getByRole('button', { name: 'Send test' }).click();
      await page.getByText('A test message is on its way').waitFor();
      await until(() => ok.received.length === 1, 'the test message');
      expect(verifies(secret, ok.received[0])).toBe(true);
      await until(async () => {
        await page.getByRole('button', { name: 'Reload' }).click();
        return (await deliveryRows().first().textContent())?.includes('Delivered') ?? false;
      }, 'the delivery shown as delivered');
      await expect(deliveryRows().first().textContent()).resolves.toMatch(/webhook\.test.*Delivered.*1.*204/);

      // Edit: point it at a failing receiver and narrow its events
      await page.getByRole('button', { name: 'Edit' }).click();
      await page.getByLabel('URL').fill(failing.url);
      await page.getByRole('radio', { name: 'Only these events' }).check();
      await page.getByRole('checkbox', { name: 'TensionRescored' }).check();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: failing.url, level: 1 }).waitFor();
      await page.getByText('TensionRescored').first().waitFor();

      // A failing test: Retrying, with its response code and next attempt; the status filter; Retry
      await page.getByRole('button', { name: 'Send test' }).click();
      await until(() => failing.received.length === 1, 'the failing attempt');
      await until(async () => {
        await page.getByRole('button', { name: 'Reload' }).click();
        return (await deliveryRows().first().textContent())?.includes('Retrying') ?? false;
      }, 'the delivery shown as retrying');
      await expect(deliveryRows().first().textContent()).resolves.toMatch(/Retrying.*1.*500/);
      await page.getByLabel('Status', { exact: true }).selectOption('retrying');
      await until(async () => (await deliveryRows().count()) === 1, 'one retrying delivery');
      await page.getByLabel('Status', { exact: true }).selectOption('succeeded');
      await until(async () => (await deliveryRows().first().textContent())?.includes('Delivered') ?? false, 'one delivered');
      expect(await deliveryRows().count()).toBe(1);
      expect(page.url()).toContain('status=succeeded');
      await page.getByLabel('Status', { exact: true }).selectOption('retrying');
      await page.getByRole('button', { name: 'Retry the webhook.test delivery now' }).click();
      await until(() => failing.received.length === 2, 'the retry sent at once, not 5 s later');
      await noSeriousViolations();
      await screenshot(page, 'webhooks-endpoint');

      // Rotate: a new secret, once; the old one keeps signing for the overlap chosen
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await page.getByLabel('For 1 day').check();
      await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
      await secretField.waitFor();
      const rotated = await secretField.inputValue();
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(secret);
      await page.getByRole('button', { name: 'I have copied the secret' }).click();
      await page.getByText('Still signs until').waitFor();

      // Turned off: disabled, and why, in words; no test can be sent
      await page.getByRole('button', { name: 'Edit' }).click();
      await page.getByLabel('Enabled').uncheck();
      await page.getByRole('button', { name: 'Save' }).click();
      await until(async () => (await page.getByTestId('webhook-status').textContent())?.includes('Turned off by an operator') ?? false, 'disabled, manual');
      expect(await page.getByRole('button', { name: 'Send test' }).isDisabled()).toBe(true);

      // The list in German: the endpoint, its status and why
      await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.getByLabel('Language').selectOption('de');
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await page.getByText('Von einer Person ausgeschaltet').waitFor();
      await page.getByRole('button', { name: '+ Neuer Endpunkt' }).waitFor();
      await noSeriousViolations();
      await screenshot(page, 'webhooks-list-de');
    },
  );
});
