// The admin app as operators use it at scale: pickers past 100 actors (keyboard only), paging in the URL,
// drop/revive, a discarded tension's history, refusals in English and German, roles in use and cycles,
// keys (revoking one, the shown-once dialog), passwords (admin reset, one's own), and 404/Forbidden headings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN, startTestApp, type TestApp } from '../support/app.js';
import { client, seedUserWithKey } from '../support/clients.js';
import { ensureWebBuild, launchBrowser, screenshot } from '../support/browser.js';

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let api: ReturnType<typeof client>;
const actorIds: string[] = [];
let tensionId = '';

const pad = (n: number) => String(n).padStart(3, '0');

beforeAll(async () => {
  ensureWebBuild();
  browser = await launchBrowser();
  app = await startTestApp();
  api = client(app, (await seedUserWithKey(app, { grants: ['*'], name: 'Seeder' })).key);
  for (let i = 1; i <= 102; i++) {
    const r = await api.post('/actors', { name: `Actor ${pad(i)}`, type: 'organization' });
    actorIds.push(r.body.id);
  }
  context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${app.url}/`);
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Tensions', level: 1 }).waitFor();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.close();
});

const history = () => page.locator('.timeline');

describe('admin app for operators', () => {
  it('reassigns to the 102nd actor from the keyboard alone: search, page on, Escape keeps the dialog', async () => {
    tensionId = (await api.post('/tensions', { name: 'Quotes are slow', actorId: actorIds[0] })).body.tension.id;
    await page.goto(`${app.url}/tensions/${tensionId}`);
    await page.getByRole('heading', { name: 'Quotes are slow', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Reassign' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reassign' });
    const box = dialog.getByRole('combobox', { name: 'Actor' });
    expect(await box.inputValue()).toBe('Actor 001');
    await box.focus();
    await page.keyboard.press('ArrowDown');
    const list = dialog.getByRole('listbox');
    await list.getByRole('option', { name: 'Show more…' }).waitFor();
    expect(await list.getByRole('option').count()).toBe(21);
    expect(await list.getByRole('option', { selected: true }).textContent()).toMatch(/^Actor 001/);
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await list.getByRole('option', { name: /^Actor 040/ }).waitFor();
    expect(await list.getByRole('option').count()).toBe(41);
    await page.keyboard.press('Escape');
    await list.waitFor({ state: 'hidden' });
    expect(await dialog.isVisible()).toBe(true);
    expect(await box.inputValue()).toBe('Actor 001');

    await box.fill('102');
    await list.getByRole('option', { name: /^Actor 102/ }).waitFor();
    expect(await list.getByRole('option').count()).toBe(1);
    await screenshot(page, 'op-01-picker-search');
    await page.keyboard.press('Enter');
    expect(await box.inputValue()).toBe('Actor 102');
    expect(await box.getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('Enter');
    await history().getByText('Reassigned from Actor 001 to Actor 102').waitFor();
    await page.locator('.header-meta').getByText('Actor 102').waitFor();
  });

  it('shows the current actor although it is on no first page, and saving it unchanged changes nothing', async () => {
    await page.getByRole('button', { name: 'Reassign' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reassign' });
    expect(await dialog.getByRole('combobox', { name: 'Actor' }).inputValue()).toBe('Actor 102');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Nothing changed.').waitFor();
  });

  it('costs one GraphQL request per edit: the page shows what the command answered, the picker fetches nothing unopened', async () => {
    const requests: string[] = [];
    const count = (r: import('playwright-core').Request) => {
      const url = new URL(r.url());
      // urql sends queries as GET (within the URL limit) and mutations as POST
      const query = url.searchParams.get('query') ?? String(r.postDataJSON()?.query ?? '');
      if (url.pathname === '/graphql') requests.push(query.match(/(mutation|query) (\w+)/)?.[2] ?? '?');
    };
    // the page's live-updates stream connects on its own (a head query, then the stream): let it settle first
    const liveBadge = page.getByTestId('live-indicator').and(page.locator('[data-state="live"]'));
    await liveBadge.waitFor();
    page.on('request', count);
    await page.getByRole('button', { name: 'Rename' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rename' });
    await dialog.getByLabel('Name').fill('Quotes are far too slow');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await history().locator('.timeline-summary').first().getByText('Renamed from “Quotes are slow” to “Quotes are far too slow”').waitFor();
    await page.getByRole('heading', { name: 'Quotes are far too slow', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Change lead' }).click();
    await page.getByRole('dialog', { name: 'Change lead' }).getByRole('button', { name: 'Cancel' }).click();
    // never 'networkidle': the page holds its live-updates stream open. The edit's own event arrives on that
    // stream meanwhile and must not cause a refetch; give any such request time to show up.
    await liveBadge.waitFor();
    await page.waitForTimeout(1_000);
    page.off('request', count);
    expect(requests).toEqual(['RenameTension']);
  });

  it('drops a tension as stale and revives it, each step in the history', async () => {
    await page.getByRole('button', { name: 'Drop as stale' }).click();
    await history().getByText('Dropped as stale', { exact: true }).waitFor();
    await page.locator('.header-meta').getByText('Stale').waitFor();
    expect(await page.getByRole('button', { name: 'Resolve' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Revive' }).click();
    await history().getByText('Revived', { exact: true }).waitFor();
    await page.locator('.header-meta').getByText('Alive').waitFor();
    const summaries = await history().locator('.timeline-summary').allTextContents();
    expect(summaries.slice(0, 3)).toEqual(['Revived', 'Dropped as stale', 'Renamed from “Quotes are slow” to “Quotes are far too slow”']);
  });

  it("opens a discarded tension's history", async () => {
    await page.getByRole('button', { name: 'Discard' }).click();
    await page.getByRole('dialog', { name: 'Discard this tension?' }).getByRole('button', { name: 'Discard' }).click();
    await page.getByRole('heading', { name: 'Tensions', level: 1 }).waitFor();
    await page.getByText('The tension was discarded.').waitFor();
    await page.goto(`${app.url}/tensions/${tensionId}`);
    await page.getByText('This tension does not exist or has been discarded.').waitFor();
    await page.getByRole('link', { name: 'Open its history' }).click();
    await page.getByRole('heading', { name: 'Discarded tension', level: 1 }).waitFor();
    await history().getByText('Discarded', { exact: true }).waitFor();
    expect((await history().locator('.timeline-summary').allTextContents()).at(-1)).toBe('Tension sensed as “Quotes are slow”');
    await screenshot(page, 'op-02-discarded-history');
  });

  it('pages past 20 rows with the page in the URL: reload keeps it, Previous goes back', async () => {
    await page.goto(`${app.url}/actors`);
    await page.getByRole('cell', { name: 'Actor 001', exact: true }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(20);
    await page.getByRole('button', { name: 'Next →' }).click();
    await page.getByRole('cell', { name: 'Actor 021', exact: true }).waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    await page.reload();
    await page.getByRole('cell', { name: 'Actor 021', exact: true }).waitFor();
    expect(await page.getByText('Page 2').first().isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Next →' }).click();
    await page.getByRole('cell', { name: 'Actor 041', exact: true }).waitFor();
    await page.getByRole('button', { name: '← Previous' }).click();
    await page.getByRole('cell', { name: 'Actor 021', exact: true }).waitFor();
    // filters live in the URL too, and a new filter starts at page 1
    await page.getByRole('searchbox', { name: 'Search' }).fill('Actor 10');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('cell', { name: 'Actor 100', exact: true }).waitFor();
    const url = new URL(page.url());
    expect(url.searchParams.get('q')).toBe('Actor 10');
    expect(url.searchParams.get('page')).toBeNull();
    expect(await page.locator('tbody tr').count()).toBe(3);
  });

  it('sorts tensions by a column header, and the sort is in the URL', async () => {
    await api.post('/tensions', { name: 'Alpha tension', actorId: actorIds[1], score: 2 });
    await api.post('/tensions', { name: 'Beta tension', actorId: actorIds[1], score: 9 });
    await page.goto(`${app.url}/tensions`);
    const names = () => page.locator('tbody .row-link').allTextContents();
    await page.getByRole('link', { name: 'Beta tension' }).waitFor();
    expect(await names()).toEqual(['Beta tension', 'Alpha tension']);
    await page.getByRole('button', { name: /^Tension/ }).click();
    await page.waitForURL(/sort=name/);
    await expect.poll(names).toEqual(['Alpha tension', 'Beta tension']);
    expect(await page.getByRole('columnheader', { name: /^Tension/ }).getAttribute('aria-sort')).toBe('ascending');
    await page.getByRole('button', { name: /^Tension/ }).click();
    await page.waitForURL(/sort=-name/);
    await expect.poll(names).toEqual(['Beta tension', 'Alpha tension']);
  });

  it('says an expected refusal in plain words next to its field, in English and in German', async () => {
    await page.goto(`${app.url}/users`);
    for (const [lang, expected] of [
      ['en', 'Another user already has this email address.'],
      ['de', 'Diese E-Mail-Adresse hat bereits ein anderer Benutzer.'],
    ] as const) {
      if (lang === 'de') await page.getByLabel('Language').selectOption('de');
      await page.getByRole('button', { name: lang === 'en' ? '+ New user' : '+ Neuer Benutzer' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel(lang === 'en' ? 'Agent' : 'Agent', { exact: true }).check();
      await dialog.getByLabel('Name').fill('Duplicate');
      await dialog.getByLabel(lang === 'en' ? 'Email' : 'E-Mail').fill(ADMIN.email);
      await dialog.getByRole('button', { name: lang === 'en' ? 'Create' : 'Anlegen' }).click();
      await dialog.locator('.field-error').getByText(expected).waitFor();
      const text = await dialog.textContent();
      expect(text).not.toMatch(/Something went wrong|Etwas ist schiefgegangen|`/);
      expect(text).not.toContain('email_taken');
      await screenshot(page, `op-03-refusal-${lang}`);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
    }
    await page.getByLabel('Sprache').selectOption('en');
  });

  it('puts the Administrator box back when the last administrator would lose the role', async () => {
    const me = (await api.get('/users?q=admin@test.example')).body.data[0];
    await page.goto(`${app.url}/users/${me.id}`);
    const box = page.getByRole('checkbox', { name: /Administrator/ });
    await box.uncheck();
    await page.getByRole('button', { name: 'Save roles' }).click();
    await page.getByText('The last active administrator cannot lose administrator rights.').waitFor();
    expect(await box.isChecked()).toBe(true);
  });

  it('deletes a role after saying which roles inherit it; a role in use is refused in words; cycles are not offered', async () => {
    const base = (await api.post('/roles', { code: 'base', name: 'Base role', permissions: ['tensions:read'] })).body;
    const child = (await api.post('/roles', { code: 'child', name: 'Child role', permissions: [], inherits: [base.id] })).body;
    await api.post('/roles', { code: 'grandchild', name: 'Grandchild role', permissions: [], inherits: [child.id] });
    const temp = (await api.post('/roles', { code: 'temp', name: 'Temporary role', permissions: ['actors:read'] })).body;

    await page.goto(`${app.url}/roles/${base.id}`);
    await page.getByRole('heading', { name: 'Base role', level: 1 }).waitFor();
    const inherits = page.getByRole('group', { name: 'Inherits from' });
    await inherits.getByRole('checkbox', { name: /Temporary role/ }).waitFor();
    expect(await inherits.getByRole('checkbox', { name: /Child role/ }).count()).toBe(0);
    expect(await inherits.getByRole('checkbox', { name: /Grandchild role/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete role “Base role”?' });
    await confirm.getByText('Inherited by: Child role. Remove it there first.').waitFor();
    // it says why it cannot be deleted, and does not offer Delete as if it could (nor that holders would lose anything)
    expect(await confirm.getByRole('button', { name: 'Delete' }).isDisabled()).toBe(true);
    expect(await confirm.textContent()).not.toContain('lose its permissions');
    await confirm.getByRole('button', { name: 'Cancel' }).click();

    await page.goto(`${app.url}/roles/${temp.id}`);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete role “Temporary role”?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Base role' }).waitFor();
    expect(await page.getByRole('link', { name: 'Temporary role' }).count()).toBe(0);
    expect((await api.get(`/roles/${temp.id}`)).status).toBe(404);
  });

  it('keeps the new-key dialog open on Escape, titles it for the agent, and revokes one key of two', async () => {
    const agent = (await api.post('/users', { type: 'agent', email: 'quoter@test.example', name: 'Quote bot' })).body;
    const first = (await api.post(`/users/${agent.id}/api-keys`, { name: 'first' })).body;
    await page.goto(`${app.url}/users/${agent.id}`);
    await page.getByRole('button', { name: '+ Provision key' }).click();
    const provision = page.getByRole('dialog', { name: 'Provision key' });
    await provision.getByLabel('Key name').fill('second');
    await provision.getByRole('button', { name: 'Create' }).click();
    const once = page.getByRole('dialog', { name: 'New API key for Quote bot' });
    const second = await once.getByLabel('API key').inputValue();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    expect(await once.isVisible()).toBe(true);
    await once.getByRole('button', { name: 'I have copied the key' }).click();
    await once.waitFor({ state: 'hidden' });

    await page.getByRole('button', { name: 'Revoke: first' }).click();
    await page.getByRole('dialog', { name: 'Revoke key “first”?' }).getByRole('button', { name: 'Revoke' }).click();
    // the keys table (the Activity tab below also names the key now: "Done to this user" holds its keys' entries)
    const keys = page.getByRole('table', { name: 'API keys' });
    await keys.getByRole('row', { name: /first/ }).getByText('Revoked').waitFor();
    expect(
      await keys
        .getByRole('row', { name: /second/ })
        .getByText('Revoked')
        .count(),
    ).toBe(0);
    expect((await client(app, first.key).get('/auth/me')).status).toBe(401);
    expect((await client(app, second).get('/auth/me')).status).toBe(200);
  });

  it('lets an admin set a new password for a person, and a person change their own', async () => {
    const anna = (await api.post('/users', { type: 'human', email: 'anna@test.example', name: 'Anna Admin', password: 'first-password-123' })).body;
    await page.goto(`${app.url}/users/${anna.id}`);
    await page.getByLabel('Password', { exact: true }).fill('second-password-123');
    await page.getByRole('button', { name: 'Set a new password' }).click();
    await page.getByText('Password changed.', { exact: true }).waitFor();
    const login = (password: string) =>
      fetch(`${app.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'anna@test.example', password }),
      });
    expect((await login('first-password-123')).status).toBe(401);
    expect((await login('second-password-123')).status).toBe(200);

    const other = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
    const p = await other.newPage();
    p.setDefaultTimeout(10_000);
    await p.goto(`${app.url}/account`);
    await p.getByLabel('Email').fill('anna@test.example');
    await p.getByLabel('Password').fill('second-password-123');
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('heading', { name: 'My account', level: 1 }).waitFor();
    await p.getByLabel('Current password').fill('wrong-password-123');
    await p.getByLabel('New password').fill('third-password-123');
    await p.getByRole('button', { name: 'Change password' }).click();
    await p.locator('.alert-error').waitFor();
    expect(await p.locator('.alert-error').textContent()).not.toMatch(/Something went wrong/);
    await p.getByLabel('Current password').fill('second-password-123');
    await p.getByRole('button', { name: 'Change password' }).click();
    await p.getByText('Password changed. Other sessions were signed out.').waitFor();
    expect((await login('third-password-123')).status).toBe(200);
    await other.close();
  }, 120_000); // six argon2 hashes or verifications on a shared 2-core machine

  it('gives the 404 and Forbidden pages a level-one heading', async () => {
    await page.goto(`${app.url}/nowhere`);
    await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
    expect(await page.title()).toBe('Page not found · Market admin');
    const reader = (await api.post('/roles', { code: 'reader', name: 'Reader', permissions: ['tensions:read'] })).body;
    await api.post('/users', { type: 'human', email: 'rex@test.example', name: 'Rex Reader', password: 'reader-password-123', roleIds: [reader.id] });
    const other = await browser.newContext({ locale: 'en-US' });
    const p = await other.newPage();
    p.setDefaultTimeout(10_000);
    await p.goto(`${app.url}/users`);
    await p.getByLabel('Email').fill('rex@test.example');
    await p.getByLabel('Password').fill('reader-password-123');
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('heading', { name: 'Access denied', level: 1 }).waitFor();
    await other.close();
  });
});
