// Edits that meet someone else's, in the admin web app, in English and German: a dialog sends the version it
// was opened on, so another client's rename meanwhile ends in the conflict dialog (theirs beside mine) and
// neither name is lost; a live reload that fails while the browser is offline keeps the page, the open dialog
// and what was typed in it, and the page recovers by itself once the browser is online again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN, startTestApp, type TestApp } from '../support/app.js';
import { client, seedUserWithKey } from '../support/clients.js';
import { ensureWebBuild, launchBrowser, screenshot } from '../support/browser.js';
import { seriousViolations } from '../support/axe.js';
import { insertUser, newActor, newTension } from '../support/tensions.js';

let app: TestApp;
let browser: Browser;
let c: ReturnType<typeof client>;
let actorId: string;

beforeAll(async () => {
  ensureWebBuild();
  browser = await launchBrowser();
  app = await startTestApp();
  c = client(app, (await seedUserWithKey(app, { grants: ['tensions:*', 'actors:*', 'users:*'] })).key);
  actorId = await newActor(c, 'Conflict org');
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const TEXT = {
  en: {
    locale: 'en-US',
    tensions: 'Tensions',
    rename: 'Rename',
    name: 'Name',
    save: 'Save',
    conflict: 'Someone else saved a change',
    keepTheirs: 'Keep theirs',
    applyMine: 'Apply mine',
    history: 'History',
    renamed: (from: string, to: string) => `Renamed from “${from}” to “${to}”`,
    unreachable: 'The server cannot be reached',
    saved: 'Saved.',
    edit: 'Edit',
    renameActor: 'Rename actor',
  },
  de: {
    locale: 'de-DE',
    tensions: 'Spannungen',
    rename: 'Umbenennen',
    name: 'Name',
    save: 'Speichern',
    conflict: 'Jemand anderes hat eine Änderung gespeichert',
    keepTheirs: 'Fremde Änderung behalten',
    applyMine: 'Meine Änderung anwenden',
    history: 'Verlauf',
    renamed: (from: string, to: string) => `Umbenannt von „${from}“ in „${to}“`,
    unreachable: 'Der Server ist nicht erreichbar',
    saved: 'Gespeichert.',
    edit: 'Bearbeiten',
    renameActor: 'Akteur umbenennen',
  },
} as const;

describe.each(['en', 'de'] as const)('edits that meet another client (%s)', (lang) => {
  const tx = TEXT[lang];
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await browser.newContext({ locale: tx.locale, viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${app.url}/`);
    await page.locator('input[type=email]').fill(ADMIN.email);
    await page.locator('input[type=password]').fill(ADMIN.password);
    await page.locator('button[type=submit]').click();
    await page.getByRole('heading', { level: 1, name: tx.tensions }).waitFor();
  });
  afterAll(async () => {
    await context?.close();
  });

  /** Opens the tension's page, waits for its live feed, opens Rename and types `typed`. */
  async function openRename(id: string, typed: string) {
    await page.goto(`${app.url}/tensions/${id}`);
    await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
    await page.getByRole('button', { name: tx.rename, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: tx.rename });
    await dialog.getByLabel(tx.name).fill(typed);
    return dialog;
  }

  /** Another client renames the tension while the dialog is open; the page behind it shows that live. */
  async function renameElsewhere(id: string, name: string) {
    expect((await c.post(`/tensions/${id}/rename`, { name })).status).toBe(200);
    await page.locator('h1', { hasText: name }).waitFor();
  }

  it('Save after another rename shows the conflict with both names; "apply mine" saves mine on top of theirs', async () => {
    const t = await newTension(c, { name: `Original ${lang}`, actorId });
    const dialog = await openRename(t.id, `Mine ${lang}`);
    await renameElsewhere(t.id, `Theirs ${lang}`);
    // the dialog still holds what was typed, and Save sends the version it was opened on (1), not the reloaded 2
    expect(await dialog.getByLabel(tx.name).inputValue()).toBe(`Mine ${lang}`);
    await dialog.getByRole('button', { name: tx.save }).click();

    const conflict = page.getByRole('dialog', { name: tx.conflict });
    await conflict.waitFor();
    expect(await conflict.getByTestId('conflict-theirs').allTextContents()).toEqual([`Theirs ${lang}`]);
    expect(await conflict.getByTestId('conflict-mine').allTextContents()).toEqual([`Mine ${lang}`]);
    // nothing was written by the refused Save
    expect((await c.get(`/tensions/${t.id}`)).body).toMatchObject({ name: `Theirs ${lang}`, version: 2 });
    await screenshot(page, `edit-conflict-${lang}-01-dialog`);
    expect(await seriousViolations(page, { include: 'dialog[open]' })).toEqual([]);

    await conflict.getByRole('button', { name: tx.applyMine }).click();
    await page.locator('h1', { hasText: `Mine ${lang}` }).waitFor();
    await conflict.waitFor({ state: 'detached' });
    await page.getByRole('dialog', { name: tx.rename }).waitFor({ state: 'detached' });
    expect((await c.get(`/tensions/${t.id}`)).body).toMatchObject({ name: `Mine ${lang}`, version: 3 });
    // neither rename is lost: the history has both, theirs first
    const history = page.getByRole('region', { name: tx.history });
    await history.getByText(tx.renamed(`Original ${lang}`, `Theirs ${lang}`)).waitFor();
    await history.getByText(tx.renamed(`Theirs ${lang}`, `Mine ${lang}`)).waitFor();
  });

  it('"keep theirs" closes the edit and writes nothing', async () => {
    const t = await newTension(c, { name: `Kept ${lang}`, actorId });
    const dialog = await openRename(t.id, `Dropped ${lang}`);
    await renameElsewhere(t.id, `Theirs kept ${lang}`);
    await dialog.getByRole('button', { name: tx.save }).click();
    const conflict = page.getByRole('dialog', { name: tx.conflict });
    await conflict.getByRole('button', { name: tx.keepTheirs }).click();
    await conflict.waitFor({ state: 'detached' });
    await dialog.waitFor({ state: 'detached' });
    await page.locator('h1', { hasText: `Theirs kept ${lang}` }).waitFor();
    expect((await c.get(`/tensions/${t.id}`)).body).toMatchObject({ name: `Theirs kept ${lang}`, version: 2 });
  });

  it('a user\'s profile edited in the page and through the API: theirs beside mine, and "apply mine" saves mine', async () => {
    const id = await insertUser(app, { name: `Profile ${lang}` });
    await page.goto(`${app.url}/users/${id}`);
    await page.locator('h1', { hasText: `Profile ${lang}` }).waitFor();
    const form = page.locator('form', { has: page.getByRole('button', { name: tx.save, exact: true }) });
    await form.getByLabel(tx.name, { exact: true }).fill(`Mine ${lang}`);
    expect((await c.patch(`/users/${id}`, { name: `Theirs ${lang}` })).status).toBe(200);
    await form.getByRole('button', { name: tx.save, exact: true }).click();
    const conflict = page.getByRole('dialog', { name: tx.conflict });
    await conflict.waitFor();
    const row = conflict.getByRole('row', { name: new RegExp(`^${tx.name}`) });
    expect(await row.getByTestId('conflict-theirs').textContent()).toBe(`Theirs ${lang}`);
    expect(await row.getByTestId('conflict-mine').textContent()).toBe(`Mine ${lang}`);
    expect((await c.get(`/users/${id}`)).body).toMatchObject({ name: `Theirs ${lang}`, version: 2 });
    await conflict.getByRole('button', { name: tx.applyMine }).click();
    await conflict.waitFor({ state: 'detached' });
    await form.getByText(tx.saved).waitFor();
    expect((await c.get(`/users/${id}`)).body).toMatchObject({ name: `Mine ${lang}`, version: 3 });
  });

  it('an actor renamed in its dialog and through the API: theirs beside mine, and "keep theirs" writes nothing', async () => {
    const id = await newActor(c, `Actor ${lang}`);
    await page.goto(`${app.url}/actors`);
    await page.getByRole('button', { name: `${tx.edit}: Actor ${lang}` }).click();
    const dialog = page.getByRole('dialog', { name: tx.renameActor });
    await dialog.getByLabel(tx.name).fill(`Mine ${lang}`);
    expect((await c.patch(`/actors/${id}`, { name: `Theirs actor ${lang}` })).status).toBe(200);
    await dialog.getByRole('button', { name: tx.save }).click();
    const conflict = page.getByRole('dialog', { name: tx.conflict });
    await conflict.waitFor();
    expect(await conflict.getByTestId('conflict-theirs').allTextContents()).toEqual([`Theirs actor ${lang}`]);
    expect(await conflict.getByTestId('conflict-mine').allTextContents()).toEqual([`Mine ${lang}`]);
    await conflict.getByRole('button', { name: tx.keepTheirs }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await c.get(`/actors/${id}`)).body).toMatchObject({ name: `Theirs actor ${lang}`, version: 2 });
  });

  it('a live reload that fails offline keeps the dialog and the typed text; online again, the page recovers by itself', async () => {
    const t = await newTension(c, { name: `Before offline ${lang}`, actorId });
    const dialog = await openRename(t.id, `Typed offline ${lang}`);
    const loads: string[] = [];
    page.on('framenavigated', (f) => loads.push(f.url()));
    // the page's reload of the tension (urql sends queries as GET) failing for want of a network
    const failed = page.waitForEvent('requestfailed', { predicate: (r) => Boolean(new URL(r.url()).searchParams.get('query')?.startsWith('query Tension(')) });
    await context.setOffline(true);
    try {
      // another client's rename reaches the page on its feed; the page's reload of the tension fails offline
      expect((await c.post(`/tensions/${t.id}/rename`, { name: `Renamed meanwhile ${lang}` })).status).toBe(200);
      await failed;
      // the page shows either the small notice over what it had, or (as it did) only the error in its place
      await page
        .getByTestId('retrying-notice')
        .or(page.getByRole('alert').filter({ hasText: tx.unreachable }))
        .first()
        .waitFor();
      await screenshot(page, `edit-conflict-${lang}-02-offline`);
      expect(await page.getByRole('dialog', { name: tx.rename }).count(), 'the Rename dialog is still open').toBe(1);
      expect(await dialog.getByLabel(tx.name).inputValue()).toBe(`Typed offline ${lang}`);
      expect(await page.locator('h1', { hasText: `Before offline ${lang}` }).count(), 'the page behind it still shows the tension').toBe(1);
      await page.getByTestId('retrying-notice').waitFor();
    } finally {
      await context.setOffline(false);
    }
    // online again: the page fetches the tension by itself, the notice goes, the dialog and its text stay
    await page.locator('h1', { hasText: `Renamed meanwhile ${lang}` }).waitFor();
    await page.getByTestId('retrying-notice').waitFor({ state: 'detached' });
    await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
    await screenshot(page, `edit-conflict-${lang}-03-online`);
    expect(await dialog.getByLabel(tx.name).inputValue()).toBe(`Typed offline ${lang}`);
    expect(loads, 'no page reload').toEqual([]);
    // and the typed name still meets the other client's as a conflict, not a silent overwrite
    await dialog.getByRole('button', { name: tx.save }).click();
    const conflict = page.getByRole('dialog', { name: tx.conflict });
    await conflict.waitFor();
    expect(await conflict.getByTestId('conflict-theirs').allTextContents()).toEqual([`Renamed meanwhile ${lang}`]);
    await conflict.getByRole('button', { name: tx.applyMine }).click();
    await page.locator('h1', { hasText: `Typed offline ${lang}` }).waitFor();
    expect((await c.get(`/tensions/${t.id}`)).body).toMatchObject({ name: `Typed offline ${lang}`, version: 3 });
  }, 60_000);
});
