// Every screen at a 390 × 844 and a 360 × 780 phone (no sideways scroll, the menu reaches "My account", row actions in view)
// in English and German; axe over every screen, a dialog and an open picker, light and dark: no serious or
// critical violation; deactivated leads marked wherever the app shows who leads.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { client, seedUserWithKey } from '../support/clients.js';
import { browserSuite, screenshot } from '../support/browser.js';
import { seriousViolations } from '../support/axe.js';

let api: ReturnType<typeof client>;
const ids = { actor: '', tension: '', discarded: '', agent: '', lead: '', role: '' };

/** The screens an operator visits, each by its path and the heading that says it has loaded. */
const screens = () => [
  { name: 'tensions', path: '/tensions', h1: /Tensions|Spannungen/ },
  { name: 'tension-new', path: '/tensions/new', h1: /Sense a tension|Spannung erfassen/ },
  { name: 'tension', path: `/tensions/${ids.tension}`, h1: /Invoices bounce/ },
  { name: 'tension-history', path: `/tensions/${ids.discarded}/history`, h1: /Discarded tension|Verworfene Spannung/ },
  { name: 'actors', path: '/actors', h1: /Actors|Akteure/ },
  { name: 'users', path: '/users', h1: /Users|Benutzer/ },
  { name: 'user-agent', path: `/users/${ids.agent}`, h1: /Invoice bot with a rather long name/ },
  { name: 'roles', path: '/roles', h1: /Roles|Rollen/ },
  { name: 'role', path: `/roles/${ids.role}`, h1: /Invoice clerk/ },
  { name: 'role-new', path: '/roles/new', h1: /New role|Neue Rolle/ },
  { name: 'activity', path: '/activity', h1: /Activity|Aktivität/ },
  { name: 'account', path: '/account', h1: /My account|Mein Konto/ },
  { name: 'dashboard', path: '/dashboard', h1: /Dashboard|Übersicht/ },
  { name: 'not-found', path: '/nowhere', h1: /Page not found|Seite nicht gefunden/ },
];

const signedIn = (opts: { width: number; height: number; lang: 'en' | 'de'; dark?: boolean }): Promise<Page> =>
  suite.signIn({
    locale: opts.lang === 'de' ? 'de-DE' : 'en-US',
    viewport: { width: opts.width, height: opts.height },
    colorScheme: opts.dark ? 'dark' : 'light',
    timeoutMs: 10_000,
  });

/**
 * Shows a screen as the app's own links do (the address changes, the router renders it: no new load of the
 * page and its scripts for each of the ~200 screens this file checks), then waits for it to have loaded.
 */
async function open(page: Page, screen: ReturnType<typeof screens>[number]): Promise<void> {
  await page.evaluate((path) => {
    window.history.pushState(null, '', path);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, screen.path);
  await page.getByRole('heading', { level: 1, name: screen.h1 }).waitFor();
  // lists and details finish loading (no spinner left)
  await page
    .locator('.loading')
    .first()
    .waitFor({ state: 'detached' })
    .catch(() => undefined);
}

const scrollWidth = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth);

/** Boxes inside the page that scroll sideways themselves (a wide table in an `overflow-x: auto` wrapper). */
const innerSideScrollers = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth + 1)
      .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} ${el.scrollWidth}/${el.clientWidth}px`),
  );

const suite = browserSuite();

beforeAll(async () => {
  api = client(suite.app, (await seedUserWithKey(suite.app, { grants: ['*'], name: 'Seeder' })).key);
  ids.actor = (await api.post('/actors', { name: 'Northwind Trading Company International', type: 'organization' })).body.id;
  const lead = (await api.post('/users', { type: 'human', email: 'lena.longname-lead@test.example', name: 'Lena Lead', password: 'lead-password-1234' })).body;
  ids.lead = lead.id;
  ids.tension = (
    await api.post('/tensions', { name: 'Invoices bounce', actorId: ids.actor, leadUserId: lead.id, currentContext: 'A'.repeat(300), score: 8 })
  ).body.tension.id;
  await api.post('/tensions', { name: 'Payments are late', actorId: ids.actor, score: 3 });
  expect((await api.del(`/users/${lead.id}`)).status).toBe(204);
  ids.discarded = (await api.post('/tensions', { name: 'Gone soon', actorId: ids.actor })).body.tension.id;
  await api.post(`/tensions/${ids.discarded}/resolve`);
  expect((await api.del(`/tensions/${ids.discarded}`)).status).toBe(204);
  ids.agent = (
    await api.post('/users', { type: 'agent', email: 'invoice-bot-with-a-long-address@test.example', name: 'Invoice bot with a rather long name' })
  ).body.id;
  await api.post(`/users/${ids.agent}/api-keys`, { name: 'invoice production key' });
  ids.role = (
    await api.post('/roles', { code: 'invoice-clerk', name: 'Invoice clerk', permissions: ['tensions:read', 'tensions:write', 'actors:read'] })
  ).body.id;
});

describe('phone layout, 390 × 844 and 360 × 780', () => {
  for (const width of [390, 360]) {
    for (const lang of ['en', 'de'] as const) {
      it(`has no sideways scroll on any screen at ${width} px (${lang})`, async () => {
        const page = await signedIn({ width, height: width === 390 ? 844 : 780, lang });
        const wide: string[] = [];
        for (const screen of screens()) {
          await open(page, screen);
          const scrolled = await scrollWidth(page);
          if (scrolled > width) wide.push(`${screen.name}: ${scrolled}px`);
          for (const inner of await innerSideScrollers(page)) wide.push(`${screen.name}: ${inner}`);
          await screenshot(page, `phone${width === 390 ? '' : `-${width}`}-${lang}-${screen.name}`);
        }
        expect(wide).toEqual([]);
      }, 120_000);
    }
  }

  it('reaches "My account" through the menu, which says who is signed in, and keeps row actions in view', async () => {
    const page = await signedIn({ width: 390, height: 844, lang: 'en' });
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    expect(await nav.getByRole('link', { name: 'My account' }).isVisible()).toBe(false);
    const menu = page.getByRole('button', { name: 'Menu' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    const whoami = page.locator('header').getByText(/^Signed in as /);
    expect(await whoami.isVisible()).toBe(false);
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    // the open menu says who is signed in
    expect(await whoami.isVisible()).toBe(true);
    await screenshot(page, 'phone-en-menu-open');
    await nav.getByRole('link', { name: 'My account' }).click();
    await page.getByRole('heading', { name: 'My account', level: 1 }).waitFor();
    expect(await nav.getByRole('link', { name: 'My account' }).isVisible()).toBe(false);

    const inView = async (name: string) => {
      const box = await page.getByRole('button', { name }).boundingBox();
      expect(box, name).not.toBeNull();
      expect(box!.x, name).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width, name).toBeLessThanOrEqual(390);
    };
    await page.goto(`${suite.app.url}/actors`);
    await inView('Edit: Northwind Trading Company International');
    await inView('Delete: Northwind Trading Company International');
    await page.goto(`${suite.app.url}/users/${ids.agent}`);
    await inView('Rotate: invoice production key');
    await inView('Revoke: invoice production key');
    // the picker's list fits the phone too
    await page.goto(`${suite.app.url}/tensions/new`);
    await page.getByRole('combobox', { name: 'Actor' }).click();
    await page.getByRole('option', { name: /^Northwind/ }).waitFor();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390);
    await screenshot(page, 'phone-en-picker-open');
  });
});

describe('tablet and desktop, 768 to 1440 px', () => {
  // German navigation is wider than English: it overflowed at 861–1024 and 1280–1320 px and cut off "Abmelden"
  for (const width of [768, 1024, 1280, 1440]) {
    for (const lang of ['en', 'de'] as const) {
      it(`has no sideways scroll on any screen and keeps sign-out (or the menu) whole at ${width} px (${lang})`, async () => {
        const page = await signedIn({ width, height: 900, lang });
        const wide: string[] = [];
        for (const screen of screens()) {
          await open(page, screen);
          const scrolled = await scrollWidth(page);
          if (scrolled > width) wide.push(`${screen.name}: ${scrolled}px`);
          for (const inner of await innerSideScrollers(page)) wide.push(`${screen.name}: ${inner}`);
        }
        expect(wide).toEqual([]);
        const signOut = page.getByRole('button', { name: lang === 'en' ? 'Log out' : 'Abmelden' });
        const menu = page.getByRole('button', { name: lang === 'en' ? 'Menu' : 'Menü' });
        const control = (await signOut.isVisible()) ? signOut : menu;
        const box = await control.boundingBox();
        expect(box).not.toBeNull();
        expect(box!.x + box!.width).toBeLessThanOrEqual(width);
        // its whole label is shown, not clipped by the bar
        expect(await control.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
        await screenshot(page, `desktop-${width}-${lang}`);
      }, 120_000);
    }
  }
});

describe('desktop, 1280 px', () => {
  it("shows every filter select's chosen option in full (the sort select was clipped)", async () => {
    const page = await signedIn({ width: 1280, height: 900, lang: 'de' });
    await page.goto(`${suite.app.url}/tensions?sort=-updatedAt`);
    await page.getByRole('link', { name: 'Invoices bounce' }).waitFor();
    const clipped = await page.evaluate(() => {
      const ctx = document.createElement('canvas').getContext('2d')!;
      return [...document.querySelectorAll<HTMLSelectElement>('.filters select')].flatMap((select) => {
        const style = getComputedStyle(select);
        ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        // room for the text: the box minus its padding and the drop-down arrow
        const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
        return [...select.options].filter((o) => ctx.measureText(o.text).width > room).map((o) => `${select.name}: ${o.text}`);
      });
    });
    expect(clipped).toEqual([]);
    await screenshot(page, 'desktop-de-tensions-filters');
  });
});

describe('deactivated leads', () => {
  for (const [lang, mark] of [
    ['en', 'Deactivated'],
    ['de', 'Deaktiviert'],
  ] as const) {
    it(`are marked in words in the list's lead column and on the tension, read with them (${lang})`, async () => {
      const page = await signedIn({ width: 1280, height: 900, lang });
      const operations: string[] = [];
      page.on('request', (r) => {
        const url = new URL(r.url());
        // urql sends queries as GET (within the URL limit) and mutations as POST
        const query = url.searchParams.get('query') ?? String(r.postDataJSON()?.query ?? '');
        if (url.pathname === '/graphql') operations.push(query.match(/(mutation|query) (\w+)/)?.[2] ?? '?');
      });
      await page.goto(`${suite.app.url}/tensions`);
      const row = (name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name }) });
      const lead = (name: string) => row(name).locator(`td[data-label="${lang === 'en' ? 'Lead' : 'Verantwortlich'}"]`);
      await expect.poll(() => lead('Invoices bounce').innerText()).toMatch(new RegExp(`^Lena Lead\\s+${mark}$`));
      expect(await lead('Payments are late').innerText()).not.toContain(mark);
      await page.getByRole('link', { name: 'Invoices bounce' }).click();
      await page.getByRole('heading', { name: 'Invoices bounce', level: 1 }).waitFor();
      await page.locator('.facts').getByText(mark).waitFor();
      await screenshot(page, `deactivated-lead-${lang}`);
      // the status came with the list and the tension: no lookup of the user per row
      expect(operations).toContain('Tensions');
      expect(operations.filter((o) => o === 'PickUser')).toEqual([]);
    });
  }

  it('are marked as the current lead, offered in the lead filter, and not offered as a new lead', async () => {
    const page = await signedIn({ width: 1280, height: 900, lang: 'en' });
    await page.goto(`${suite.app.url}/tensions/${ids.tension}`);
    await page.getByRole('heading', { name: 'Invoices bounce', level: 1 }).waitFor();
    await page.locator('.facts').getByText('Deactivated').waitFor();
    await page.getByRole('button', { name: 'Change lead' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change lead' });
    const box = dialog.getByRole('combobox', { name: 'Lead' });
    expect(await box.inputValue()).toBe('Lena Lead');
    await dialog.getByText('Deactivated').waitFor();
    await box.fill('Lena');
    await dialog.getByText('No matches.').waitFor();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    await page.goto(`${suite.app.url}/tensions`);
    await page.getByRole('combobox', { name: 'Lead' }).fill('Lena');
    const option = page.getByRole('option', { name: /^Lena Lead/ });
    await option.getByText('Deactivated').waitFor();
    await option.click();
    await page.getByRole('link', { name: 'Invoices bounce' }).waitFor();
    expect(await page.getByRole('link', { name: 'Payments are late' }).count()).toBe(0);
    expect(new URL(page.url()).searchParams.get('leadUserId')).toBe(ids.lead);
    // from the URL alone, the filter names its user (and marks them)
    await page.reload();
    await expect.poll(() => page.getByRole('combobox', { name: 'Lead' }).inputValue()).toBe('Lena Lead');
    await page.locator('.filters').getByText('Deactivated').waitFor();
  });
});

describe('accessibility (axe)', () => {
  for (const variant of [
    { label: 'desktop, light', width: 1280, height: 900, dark: false },
    { label: 'phone, dark', width: 390, height: 844, dark: true },
  ]) {
    it(`finds no serious or critical violation on any screen (${variant.label})`, async () => {
      const page = await signedIn({ width: variant.width, height: variant.height, lang: 'en', dark: variant.dark });
      const found: string[] = [];
      for (const screen of screens()) {
        await open(page, screen);
        for (const v of await seriousViolations(page)) found.push(`${screen.name}: ${v}`);
      }
      expect(found).toEqual([]);
    }, 240_000); // axe over a dozen screens on a shared 2-core machine
  }

  it('finds none in an open dialog with an open picker list', async () => {
    // 300 actors: the open picker has more options than its popup shows, so its list scrolls
    for (let i = 0; i < 300; i += 25) {
      await Promise.all(
        Array.from({ length: 25 }, (_, j) => api.post('/actors', { name: `Picker actor ${String(i + j).padStart(3, '0')}`, type: 'organization' })),
      );
    }
    const page = await signedIn({ width: 1280, height: 900, lang: 'en' });
    await page.goto(`${suite.app.url}/tensions/${ids.tension}`);
    await page.getByRole('button', { name: 'Reassign' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reassign' });
    await dialog.getByRole('combobox', { name: 'Actor' }).press('ArrowDown');
    await dialog.getByRole('option').first().waitFor();
    // the list is longer than its popup (300 actors): a scrolling region, which the keyboard must reach too
    expect(await dialog.locator('.combobox-popup').evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'a11y-dialog-picker');
  });

  it('finds none with the phone menu open, in light mode (the open Menu button stays legible)', async () => {
    const page = await signedIn({ width: 390, height: 844, lang: 'en' });
    await page.getByRole('button', { name: 'Menu' }).click(); // the pointer stays over it: hovered and expanded
    expect(await seriousViolations(page)).toEqual([]);
  });
});
