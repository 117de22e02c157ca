// A search of one or two characters reads part of the list a page (issue 37): the tensions list shows an
// empty or short page with a next one as "the search goes on", never as "no tensions match", and Next finds
// the match further down. The service reads 10 tensions a request here (100,000 in service).
import { beforeAll, describe, expect, it } from 'vitest';
import { client, seedUserWithKey } from '../support/clients.js';
import { browserSuite, screenshot } from '../support/browser.js';

const suite = browserSuite({ rateLimitPerMinute: 0 }, { searchScanMax: 10 });

beforeAll(async () => {
  const api = client(suite.app, (await seedUserWithKey(suite.app, { grants: ['*'], name: 'Seeder' })).key);
  const actorId = (await api.post('/actors', { name: 'Quarry', type: 'organization' })).body.id;
  // 25 tensions scored 10 down to 2, and the one holding "zq" scored 1: last in the default order
  for (let i = 0; i < 25; i++) expect((await api.post('/tensions', { name: `Stone ${i}`, actorId, score: 10 - Math.floor(i / 3) })).status).toBe(201);
  expect((await api.post('/tensions', { name: 'Topaz quartz', currentContext: 'a ZQ mark', actorId, score: 1 })).status).toBe(201);
}, 120_000);

describe('tensions list: a search that reads part of the list a page', () => {
  it('says the search goes on where the page is empty, and Next reaches the match', async () => {
    const page = await suite.signIn({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
    await page.goto(`${suite.app.url}/tensions?q=zq`);
    const goesOn = page.getByTestId('search-goes-on');
    await goesOn.waitFor({ timeout: 15_000 });
    expect(await goesOn.textContent()).toBe('A search of one or two characters reads part of the list at a time: Next searches on.');
    expect(await page.getByText('No tensions match these filters.').count()).toBe(0);
    await screenshot(page, 'search-goes-on-01-empty-page');
    const match = page.getByRole('link', { name: 'Topaz quartz' });
    for (let n = 0; n < 5 && (await match.count()) === 0; n++) {
      await page.getByRole('button', { name: 'Next' }).click();
      await match.waitFor({ timeout: 3_000 }).catch(() => undefined);
    }
    await match.waitFor({ timeout: 15_000 });
    await screenshot(page, 'search-goes-on-02-found');
  }, 90_000);
});
