// Accountable identity in the admin app (issue 14): the Activity page, a key scoped to read only, rotation with
// an overlap, reactivation, and the conflict dialog when a role changed while it was being edited.
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

beforeAll(async () => {
  ensureWebBuild();
  browser = await launchBrowser();
  app = await startTestApp();
  api = client(app, (await seedUserWithKey(app, { grants: ['*'], name: 'Seeder' })).key);
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

/** An agent holding a role with `permissions`, made through the API. */
async function agent(name: string, permissions: string[]): Promise<string> {
  const code = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const role = await api.post('/roles', { code, name: `${name} role`, permissions });
  expect(role.status).toBe(201);
  const user = await api.post('/users', { type: 'agent', email: `${code}@test.example`, name, roleIds: [role.body.id] });
  expect(user.status).toBe(201);
  return user.body.id;
}

/** The plaintext in the shown-once dialog; Escape does not close it, "I have copied the key" does. */
async function takeShownKey(): Promise<string> {
  const input = page.getByTestId('api-key-plaintext');
  await input.waitFor();
  const key = await input.inputValue();
  await page.keyboard.press('Escape');
  expect(await input.isVisible()).toBe(true);
  await page.getByRole('button', { name: 'I have copied the key' }).click();
  await input.waitFor({ state: 'hidden' });
  return key;
}

const keyTable = () => page.getByRole('table', { name: 'API keys' });

describe('accountable identity in the admin app', () => {
  it('Activity: an action done through the API appears, the action filter narrows, the target links to its page', async () => {
    const role = await api.post('/roles', { code: 'auditors', name: 'Auditors', permissions: ['audit:read'] });
    expect(role.status).toBe(201);
    await page.getByRole('link', { name: 'Activity' }).click();
    await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
    const rows = page.locator('table.activity-table tbody tr');
    const created = rows.filter({ hasText: 'Role created' }).filter({ has: page.getByRole('link', { name: 'auditors', exact: true }) });
    await created.waitFor();
    // the seeding and the sign-in are there too, so the filter has something to narrow
    expect(await rows.filter({ hasText: 'Signed in' }).count()).toBeGreaterThan(0);
    // who: the seeding agent, through REST, with its key
    expect(await created.getByRole('link', { name: 'Seeder', exact: true }).count()).toBe(1);
    expect(await created.textContent()).toContain('rest');
    expect(await created.textContent()).toContain('with key “Seeder key”');

    await page.getByLabel('Action').selectOption('role.created');
    await page.waitForURL(/action=role\.created/);
    await rows.filter({ hasText: 'Signed in' }).first().waitFor({ state: 'detached' });
    const actions = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action')));
    expect(actions.length).toBeGreaterThan(0);
    expect(new Set(actions)).toEqual(new Set(['role.created']));
    await screenshot(page, 'id-01-activity-filtered');

    await rows.getByRole('link', { name: 'auditors', exact: true }).click();
    await page.waitForURL(`${app.url}/roles/${role.body.id}`);
    await page.getByRole('heading', { name: 'Auditors', level: 1 }).waitFor();
  });

  it("Activity: changes name the roles, actor and status an id or code stands for, in the reader's language; the target filter names its target", async () => {
    const base = await api.post('/roles', { code: 'base-clerks', name: 'Base clerks', permissions: ['tensions:read'] });
    const actor = await api.post('/actors', { name: 'Linked Agent Actor', type: 'agent' });
    const role = await api.post('/roles', { code: 'senior-clerks', name: 'Senior clerks', permissions: [], inherits: [base.body.id] });
    const user = await api.post('/users', {
      type: 'agent',
      email: 'named-bot@test.example',
      name: 'Named bot',
      roleIds: [role.body.id],
      linkedActorId: actor.body.id,
    });
    expect([base.status, actor.status, role.status, user.status]).toEqual([201, 201, 201, 201]);
    expect((await api.del(`/users/${user.body.id}`)).status).toBe(204);
    await page.goto(`${app.url}/activity?targetId=${user.body.id}`);
    const rows = page.locator('table.activity-table tbody tr');
    const created = rows.filter({ hasText: 'User created' });
    await created.getByText('Roles: – → Senior clerks').waitFor();
    await created.getByText('Linked actor: – → Linked Agent Actor').waitFor();
    await rows.filter({ hasText: 'User deactivated' }).getByText('Status: Active → Deactivated').waitFor();
    // the filter chip names the user, not its id; no raw id anywhere in the changes
    await page.getByText('Only about named-bot@test.example').waitFor();
    expect(await page.locator('table.activity-table').textContent()).not.toContain(role.body.id);
    expect(await page.locator('table.activity-table').textContent()).not.toContain(actor.body.id);
    await page.goto(`${app.url}/activity?targetId=${role.body.id}`);
    await rows.filter({ hasText: 'Role created' }).getByText('Inherits: – → Base clerks').waitFor();
    // German: field names and values translated too
    await page.getByLabel('Language').selectOption('de');
    await rows.filter({ hasText: 'Rolle angelegt' }).getByText('Erbt von: – → Base clerks').waitFor();
    await page.getByLabel('Sprache').selectOption('en');
  });

  it("forms answer in the app's language, not the browser's or the server's: a missing actor is required, a wrong password is not correct", async () => {
    await page.goto(`${app.url}/tensions/new`);
    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('heading', { name: 'Spannung erfassen', level: 1 }).waitFor();
    // nothing filled in: no browser bubble (it would say it in the browser's language and send nothing)
    await page.getByRole('button', { name: 'Spannung erfassen' }).click();
    const actorField = page.locator('.field').filter({ has: page.getByRole('combobox', { name: 'Akteur' }) });
    await actorField.getByText('Pflichtfeld.').waitFor();
    expect(await actorField.textContent()).not.toContain('Format');
    await page.goto(`${app.url}/account`);
    await page.getByLabel('Aktuelles Passwort').fill('not-the-password-at-all');
    await page.getByLabel('Neues Passwort').fill('a-new-password-that-is-long');
    await page.getByRole('button', { name: 'Passwort ändern' }).click();
    const current = page.locator('.field').filter({ has: page.getByLabel('Aktuelles Passwort') });
    await current.getByText('Nicht korrekt.').waitFor();
    expect(await page.locator('main').textContent()).not.toContain('is not the current password');
    await page.getByLabel('Sprache').selectOption('en');
  });

  it('does not offer what the server would refuse as escalation: a stronger user is not editable (and says why), a stronger role not assignable', async () => {
    const role = await api.post('/roles', { code: 'user-managers', name: 'User managers', permissions: ['users:read', 'users:write', 'roles:read'] });
    const uma = await api.post('/users', {
      type: 'human',
      email: 'uma@test.example',
      name: 'Uma Manager',
      password: 'uma-password-1234',
      roleIds: [role.body.id],
    });
    const weak = await api.post('/users', { type: 'agent', email: 'weak-bot@test.example', name: 'Weak bot' });
    expect([role.status, uma.status, weak.status]).toEqual([201, 201, 201]);
    const admins = (await api.get('/users?type=human')).body.data as { id: string; email: string }[];
    const adminId = admins.find((u) => u.email === ADMIN.email)!.id;
    const other = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
    try {
      const p = await other.newPage();
      p.setDefaultTimeout(10_000);
      await p.goto(`${app.url}/`);
      await p.getByLabel('Email').fill('uma@test.example');
      await p.getByLabel('Password').fill('uma-password-1234');
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.getByRole('button', { name: 'Log out' }).waitFor();
      await p.goto(`${app.url}/users/${adminId}`);
      await p.getByText(/This user holds permissions you do not \(.*tensions:write/).waitFor();
      expect(await p.getByRole('button', { name: 'Deactivate' }).count()).toBe(0);
      await p.goto(`${app.url}/users/${weak.body.id}`);
      await p.getByRole('heading', { name: 'Weak bot', level: 1 }).waitFor();
      await p.getByRole('button', { name: 'Deactivate' }).waitFor();
      const administrator = p.getByRole('checkbox', { name: /Administrator/ });
      await administrator.waitFor();
      expect(await administrator.isDisabled()).toBe(true);
      expect(await p.getByRole('checkbox', { name: /User managers/ }).isDisabled()).toBe(false);
    } finally {
      await other.close();
    }
  });

  it("asks before leaving a form with unsaved changes, in the app's language; no answer keeps what was typed", async () => {
    await page.goto(`${app.url}/tensions/new`);
    await page.getByLabel('Name').fill('Typed but not saved');
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Actors' }).click();
    await expect.poll(() => asked).toEqual(['Leave this page? What you typed here has not been saved.']);
    expect(page.url()).toBe(`${app.url}/tensions/new`);
    expect(await page.getByLabel('Name').inputValue()).toBe('Typed but not saved');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Actors' }).click();
    await page.getByRole('heading', { name: 'Actors', level: 1 }).waitFor();
    // nothing typed: no question
    await page.goto(`${app.url}/tensions/new`);
    const again = (d: import('playwright-core').Dialog) => {
      asked.push('asked again');
      void d.accept();
    };
    page.once('dialog', again);
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Actors' }).click();
    await page.getByRole('heading', { name: 'Actors', level: 1 }).waitFor();
    page.off('dialog', again);
    expect(asked).toHaveLength(1);
  });

  it('a key provisioned with the Read only preset lists only read permissions and is refused a write over REST', async () => {
    const userId = await agent('Reader Bot', ['tensions:read', 'tensions:write', 'actors:read']);
    await page.goto(`${app.url}/users/${userId}`);
    await page.getByRole('heading', { name: 'Reader Bot', level: 1 }).waitFor();
    await page.getByRole('button', { name: '+ Provision key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Provision key' });
    await dialog.getByLabel('Key name').fill('read-only key');
    await dialog.getByRole('button', { name: 'Read only' }).click();
    const boxes = dialog.locator('input[name="keyPermission"]');
    // offered: only what the agent holds; ticked: its read permissions
    expect(await boxes.evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value).sort())).toEqual(['actors:read', 'tensions:read', 'tensions:write']);
    expect(await dialog.locator('input[name="keyPermission"]:checked').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value).sort())).toEqual([
      'actors:read',
      'tensions:read',
    ]);
    await screenshot(page, 'id-02-read-only-preset');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const key = await takeShownKey();

    const row = keyTable().locator('tbody tr').filter({ hasText: 'read-only key' });
    await row.waitFor();
    const listed = await row.locator('code.perm').allTextContents();
    expect(listed.sort()).toEqual(['actors:read', 'tensions:read']);

    const scoped = client(app, key);
    expect((await scoped.get('/tensions')).status).toBe(200);
    const actor = await api.post('/actors', { name: 'Scoped target', type: 'organization' });
    const write = await scoped.post('/tensions', { name: 'Should be refused', actorId: actor.body.id });
    expect(write.status).toBe(403);
  });

  it('rotating with a 1 hour overlap shows the new key once; the old one shows "expires in" and both work', async () => {
    const userId = await agent('Rotating Bot', ['tensions:read']);
    const old = await api.post(`/users/${userId}/api-keys`, { name: 'worker' });
    expect(old.status).toBe(201);
    await page.goto(`${app.url}/users/${userId}`);
    await page.getByRole('heading', { name: 'Rotating Bot', level: 1 }).waitFor();
    const rows = keyTable().locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).not.toContain('expires in');

    await page.getByRole('button', { name: 'Rotate: worker' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate key “worker”?' });
    await dialog.getByLabel('For 1 hour').check();
    await dialog.getByRole('button', { name: 'Rotate' }).click();
    const fresh = await takeShownKey();
    expect(fresh).not.toBe(old.body.key);

    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    const expiring = rows.filter({ hasText: 'expires in 1 hour' });
    expect(await expiring.count()).toBe(1);
    expect(await expiring.textContent()).toContain(old.body.prefix);
    // both are named "worker": each row says which replaced which
    const freshPrefix = fresh.slice(0, old.body.prefix.length);
    await expiring.getByText(`Replaced by ${freshPrefix}…`).waitFor();
    await rows.filter({ hasNotText: 'expires in 1 hour' }).getByText(`New: replaces ${old.body.prefix}…`).waitFor();
    await screenshot(page, 'id-03-rotated');

    expect((await client(app, old.body.key).get('/tensions')).status).toBe(200);
    expect((await client(app, fresh).get('/tensions')).status).toBe(200);
  });

  it('reactivates a deactivated user after a confirmation', async () => {
    const user = await api.post('/users', { type: 'human', email: 'comeback@test.example', name: 'Come Back', password: 'a-long-password-1' });
    expect((await api.del(`/users/${user.body.id}`)).status).toBe(204);
    await page.goto(`${app.url}/users/${user.body.id}`);
    await page.getByRole('heading', { name: 'Come Back', level: 1 }).waitFor();
    const meta = page.locator('.header-meta');
    await meta.getByText('Deactivated').waitFor();
    await page.getByRole('button', { name: 'Reactivate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reactivate Come Back?' });
    await dialog.getByRole('button', { name: 'Reactivate' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await meta.getByText('Active', { exact: true }).waitFor();
    expect((await api.get(`/users/${user.body.id}`)).body.status).toBe('active');
    expect(await page.getByRole('button', { name: 'Reactivate' }).count()).toBe(0);
  });

  it('a role changed through the API while edited in the page: Save shows theirs beside mine, keeps the typed name, and "Apply mine" saves it', async () => {
    const role = await api.post('/roles', { code: 'editors', name: 'Editors', permissions: ['tensions:read'] });
    await page.goto(`${app.url}/roles/${role.body.id}`);
    await page.getByRole('heading', { name: 'Editors', level: 1 }).waitFor();
    const name = page.getByLabel('Name', { exact: true });
    await name.fill('Edited in the page');
    expect((await api.patch(`/roles/${role.body.id}`, { name: 'Changed through the API' })).status).toBe(200);
    await page.getByRole('button', { name: 'Save' }).click();
    const conflict = page.getByRole('dialog', { name: 'Someone else saved a change' });
    await conflict.waitFor();
    const row = conflict.getByRole('row', { name: /^Name/ });
    expect(await row.getByTestId('conflict-theirs').textContent()).toBe('Changed through the API');
    expect(await row.getByTestId('conflict-mine').textContent()).toBe('Edited in the page');
    expect((await api.get(`/roles/${role.body.id}`)).body.name).toBe('Changed through the API');
    await screenshot(page, 'id-04-role-conflict');

    await conflict.getByRole('button', { name: 'Apply mine' }).click();
    await conflict.waitFor({ state: 'hidden' });
    await page.getByText('Role saved.').waitFor();
    expect(await name.inputValue()).toBe('Edited in the page');
    expect((await api.get(`/roles/${role.body.id}`)).body.name).toBe('Edited in the page');
  });

  it('a role changed through the API while edited in the page: "Keep theirs" puts what is saved now in the form, and the next Save is based on it', async () => {
    const role = await api.post('/roles', { code: 'keepers', name: 'Keepers', permissions: ['tensions:read'] });
    await page.goto(`${app.url}/roles/${role.body.id}`);
    await page.getByRole('heading', { name: 'Keepers', level: 1 }).waitFor();
    const name = page.getByLabel('Name', { exact: true });
    await name.fill('Typed, then dropped');
    expect((await api.patch(`/roles/${role.body.id}`, { name: 'Theirs to keep', permissions: ['tensions:read', 'actors:read'] })).status).toBe(200);
    await page.getByRole('button', { name: 'Save' }).click();
    const conflict = page.getByRole('dialog', { name: 'Someone else saved a change' });
    const permissions = conflict.getByRole('row', { name: /^Permissions/ });
    expect(await permissions.getByTestId('conflict-theirs').textContent()).toBe('actors:read, tensions:read');
    expect(await permissions.getByTestId('conflict-mine').textContent()).toBe('tensions:read');
    await conflict.getByRole('button', { name: 'Keep theirs' }).click();
    await conflict.waitFor({ state: 'hidden' });
    expect(await name.inputValue()).toBe('Theirs to keep');
    expect(await page.getByRole('checkbox', { name: 'actors:read' }).isChecked()).toBe(true);
    // the form is now based on their version: a Save of it goes through
    await name.fill('Kept, then renamed');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Role saved.').waitFor();
    const saved = (await api.get(`/roles/${role.body.id}`)).body;
    expect(saved.name).toBe('Kept, then renamed');
    expect([...saved.permissions].sort()).toEqual(['actors:read', 'tensions:read']);
  });
});
