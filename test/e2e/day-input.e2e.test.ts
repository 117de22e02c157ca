// Days typed in the app's language (issue 36): the Activity page's From/To take dd.mm.yyyy in German and
// dd/mm/yyyy in English (a native date input would show the browser's mm/dd/yyyy), put the ISO day in the URL,
// and say in words when a day does not exist. A new API key's expiry is a day and a 24-hour time typed the same
// way, read in the browser's time zone.
import { describe, expect, it } from 'vitest';
import { browserSuite } from '../support/browser.js';

const suite = browserSuite();

describe('date inputs in the app language', () => {
  it('German: TT.MM.JJJJ, the ISO day in the URL, an impossible day refused in words', async () => {
    // an American browser asking for German: the day format follows the app, not the browser
    const page = await suite.signIn({ locale: 'en-US', timeoutMs: 20_000 });
    await page.evaluate(() => localStorage.setItem('market-admin.language', 'de'));
    await page.goto(`${suite.app.url}/activity?to=2026-11-30`);
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

  it("German: a new key's expiry is TT.MM.JJJJ and hh:mm in the browser's zone, and the key expires then", async () => {
    // an American browser in Berlin, the app in German; 15 January is winter time there (UTC+1) every year
    const page = await suite.signIn({ locale: 'en-US', timezoneId: 'Europe/Berlin', timeoutMs: 20_000 });
    await page.evaluate(() => localStorage.setItem('market-admin.language', 'de'));
    await page.goto(`${suite.app.url}/account`);
    await page.getByRole('button', { name: '+ Schlüssel anlegen' }).click();
    const dialog = page.getByRole('dialog', { name: 'Schlüssel anlegen' });
    await dialog.getByRole('textbox', { name: 'Name des Schlüssels' }).fill('Expiring in January');
    const day = dialog.getByRole('textbox', { name: /^Läuft ab am/ });
    const time = dialog.getByRole('textbox', { name: /^Uhrzeit/ });
    expect(await day.getAttribute('placeholder')).toBe('TT.MM.JJJJ');
    expect(await time.inputValue()).toBe('00:00');
    await dialog.getByText('hh:mm, 24 Stunden, Zeitzone Europe/Berlin').waitFor();
    const year = new Date().getUTCFullYear() + 1;
    // the browser's order (01/15) is no German day: refused in words, nothing sent
    await day.fill(`01/15/${year}`);
    await time.fill('2:30 PM');
    await dialog.getByRole('button', { name: 'Anlegen' }).click();
    await dialog.getByText('Bitte ein Datum als TT.MM.JJJJ eingeben.').waitFor();
    await day.fill(`15.01.${year}`);
    await dialog.getByRole('button', { name: 'Anlegen' }).click();
    await dialog.getByText('Bitte eine Uhrzeit als hh:mm eingeben (24 Stunden).').waitFor();
    await time.fill('14:30');
    await dialog.getByRole('button', { name: 'Anlegen' }).click();
    await page.getByTestId('api-key-plaintext').waitFor();
    await page.getByRole('button', { name: 'Ich habe den Schlüssel kopiert' }).click();
    const keys = await page.evaluate(async () => {
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-protection': '1' },
        body: JSON.stringify({ query: '{ myApiKeys { data { name expiresAt } } }' }),
      });
      return (await res.json()).data.myApiKeys.data as { name: string; expiresAt: string | null }[];
    });
    expect(keys).toEqual([{ name: 'Expiring in January', expiresAt: `${year}-01-15T13:30:00.000Z` }]);
  }, 90_000);
});
