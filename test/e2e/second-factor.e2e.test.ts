// Two-factor in the admin app (SPEC §16): enrol an authenticator app from the account page (QR code and
// secret, confirmed by a code, recovery codes shown once), then the two-step sign-in with an app code and
// with a recovery code. Codes are computed by otplib at the service's clock, which the test moves a step
// on so that no code is a replay of the one before.
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app.js';
import { PASSWORD, seedHuman } from '../support/sessions.js';
import { ensureWebBuild, launchBrowser, screenshot } from '../support/browser.js';

let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);
const code = (secret: string) => generate({ secret, epoch: Math.floor(clock().getTime() / 1000) });

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  ensureWebBuild();
  browser = await launchBrowser();
  app = await startTestApp({}, { clock });
  context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.close();
});

async function signInWithPassword(email: string) {
  await page.goto(`${app.url}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('second factor in the admin app', () => {
  it('enrols from the account page, then signs in in two steps with an app code and with a recovery code', async () => {
    const human = await seedHuman(app, ['tensions:read'], 'Enroller');
    await signInWithPassword(human.email);
    await page.getByRole('heading', { name: 'Tensions', level: 1 }).waitFor();

    await page.goto(`${app.url}/account`);
    await page.getByRole('heading', { name: 'Second factor' }).waitFor();
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = (await page.getByTestId('mfa-secret').textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const qr = page.locator('img[src^="data:image/svg+xml"]');
    await qr.waitFor();
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await page.getByLabel('Code from the app').fill(await code(secret));
    await page.getByRole('button', { name: 'Confirm' }).click();
    const shown = page.getByTestId('recovery-codes').locator('li');
    await shown.first().waitFor();
    const recoveryCodes = await shown.allTextContents();
    expect(recoveryCodes).toHaveLength(10);
    await page.getByText('An authenticator app is set up.').waitFor();
    await screenshot(page, 'second-factor-enrolled');

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();

    // The password alone is not enough: the second step asks for a code; a wrong one is refused.
    offsetMs += 30_000;
    await signInWithPassword(human.email);
    await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
    const right = await code(secret);
    await page.getByLabel('Code', { exact: true }).fill(right === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('The code is wrong, expired or was already used.').waitFor();
    await page.getByLabel('Code', { exact: true }).fill(right);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Tensions', level: 1 }).waitFor();

    // signed out once the sign-in form shows (a new load before that could cancel the sign-out's request)
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await signInWithPassword(human.email);
    await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
    await page.getByLabel('Code', { exact: true }).fill(recoveryCodes[0]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Tensions', level: 1 }).waitFor();
    await page.goto(`${app.url}/account`);
    await page.getByText('Recovery codes left: 9').waitFor();
  }, 120_000);
});
