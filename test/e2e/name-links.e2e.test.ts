// Links on actor and lead names (issue 36): in the tension list and on a tension, the actor's name opens its
// tensions and the lead's name the lead's user page.
import { beforeAll, describe, expect, it } from 'vitest';
import { client, seedUserWithKey } from '../support/clients.js';
import { browserSuite } from '../support/browser.js';

let actor = '';
let lead = '';
let tension = '';

const suite = browserSuite();

beforeAll(async () => {
  const api = client(suite.app, (await seedUserWithKey(suite.app, { grants: ['*'], name: 'Seeder' })).key);
  actor = (await api.post('/actors', { name: 'Pier Seven', type: 'organization' })).body.id;
  lead = (await api.post('/users', { type: 'human', email: 'lea@test.example', name: 'Lea Lotse', password: 'correct-horse-battery' })).body.id;
  tension = (await api.post('/tensions', { name: 'Bollards loose', actorId: actor, leadUserId: lead })).body.tension.id;
});

describe('links on actor and lead names', () => {
  it('list and detail link the actor to its tensions and the lead to the user page (en)', async () => {
    const page = await suite.signIn({ locale: 'en-US', timeoutMs: 20_000 });
    await page.goto(`${suite.app.url}/tensions`);
    const row = page.getByRole('row', { name: /Bollards loose/ });
    await row.getByRole('link', { name: 'Pier Seven' }).click();
    await page.waitForURL(`**/tensions?actorId=${actor}`);
    await page
      .getByRole('row', { name: /Bollards loose/ })
      .getByRole('link', { name: 'Lea Lotse' })
      .click();
    await page.waitForURL(`**/users/${lead}`);
    await page.goto(`${suite.app.url}/tensions/${tension}`);
    await page.getByRole('definition').getByRole('link', { name: 'Pier Seven' }).click();
    await page.waitForURL(`**/tensions?actorId=${actor}`);
    expect(new URL(page.url()).searchParams.get('actorId')).toBe(actor);
  }, 90_000);
});
