// The tensions list's totals, page size and export as an operator uses them (issue 36), in English and German:
// "1–20 of 30", a page size of 50, and the CSV the Export button downloads holding the rows the API lists for
// the same filter. The users, actors and roles lists, the Activity page and a webhook's deliveries show their
// totals and page size the same way.
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { client, seedUserWithKey } from '../support/clients.js';
import { browserSuite, screenshot } from '../support/browser.js';

let api: ReturnType<typeof client>;

const suite = browserSuite({ rateLimitPerMinute: 0 });

beforeAll(async () => {
  api = client(suite.app, (await seedUserWithKey(suite.app, { grants: ['*'], name: 'Seeder' })).key);
  const actorId = (await api.post('/actors', { name: 'Harbour', type: 'organization' })).body.id;
  for (let i = 0; i < 45; i++) {
    const res = await api.post('/tensions', { name: `${i < 30 ? 'Quay' : 'Dock'} ${String(i).padStart(2, '0')}`, actorId, score: 1 + (i % 10) });
    expect(res.status).toBe(201);
  }
});

const signedIn = (locale: string): Promise<Page> => suite.signIn({ locale, viewport: { width: 1280, height: 860 }, acceptDownloads: true });

/** RFC 4180 rows (the names here hold no quotes or line breaks, so a split is enough). */
const csvRows = (text: string) =>
  text
    .split('\r\n')
    .filter((l) => l !== '')
    .map((l) => l.split(','));

describe('tensions list: totals, page size, export', () => {
  it('English: "1–20 of 30", page size 50, and the CSV download holds the API rows for the filter', async () => {
    const page = await signedIn('en-US');
    await page.goto(`${suite.app.url}/tensions?q=Quay&sort=name`);
    const range = page.getByTestId('list-range');
    await expect.poll(() => range.textContent(), { timeout: 15_000 }).toBe('1–20 of 30');
    await page.getByLabel('Per page').selectOption('50');
    await expect.poll(() => range.textContent(), { timeout: 15_000 }).toBe('1–30 of 30');
    expect(page.url()).toContain('limit=50');
    await screenshot(page, 'lists-01-range-en');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('tensions.csv');
    const [header, ...rows] = csvRows(await readFile(await download.path(), 'utf8'));
    const listed = (await api.get('/tensions?q=Quay&sort=name&limit=100')).body.data as { id: string; name: string }[];
    expect(rows.length).toBe(30);
    expect(rows.map((r) => [r[header.indexOf('id')], r[header.indexOf('name')]])).toEqual(listed.map((t) => [t.id, t.name]));
  }, 90_000);

  it('German: "1–20 von 45" and the export buttons in German', async () => {
    const page = await signedIn('de-DE');
    await page.goto(`${suite.app.url}/tensions`);
    await expect.poll(() => page.getByTestId('list-range').textContent(), { timeout: 15_000 }).toBe('1–20 von 45');
    expect(await page.getByRole('link', { name: 'CSV exportieren' }).getAttribute('href')).toBe('/api/v1/export/tensions?format=csv');
    await page.getByLabel('Pro Seite').waitFor();
    await screenshot(page, 'lists-02-range-de');
  }, 90_000);
});

describe('users and actors lists: totals and page size', () => {
  it('German users: "1–20 von 25", page size 50; English actors: "21–23 of 23" on page 2', async () => {
    for (let i = 0; i < 25; i += 5)
      await Promise.all(
        Array.from({ length: 5 }, (_, j) =>
          api.post('/users', { type: 'agent', email: `lotse${i + j}@test.example`, name: `Lotse ${String(i + j).padStart(2, '0')}` }),
        ),
      );
    for (let i = 0; i < 23; i++) expect((await api.post('/actors', { name: `Kai ${String(i).padStart(2, '0')}`, type: 'organization' })).status).toBe(201);

    const de = await signedIn('de-DE');
    await de.goto(`${suite.app.url}/users?q=Lotse`);
    const usersRange = de.getByTestId('list-range');
    await expect.poll(() => usersRange.textContent(), { timeout: 15_000 }).toBe('1–20 von 25');
    await de.getByLabel('Pro Seite').selectOption('50');
    await expect.poll(() => usersRange.textContent(), { timeout: 15_000 }).toBe('1–25 von 25');
    expect(de.url()).toContain('limit=50');

    const en = await signedIn('en-US');
    await en.goto(`${suite.app.url}/actors?q=Kai`);
    const actorsRange = en.getByTestId('list-range');
    await expect.poll(() => actorsRange.textContent(), { timeout: 15_000 }).toBe('1–20 of 23');
    await en.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => actorsRange.textContent(), { timeout: 15_000 }).toBe('21–23 of 23');
    await screenshot(en, 'lists-03-actors-range-en');
  }, 120_000);

  it('German roles: "1–20 von N", page 2; English Activity: the filtered total; German deliveries: "1–20 von 23", by status', async () => {
    for (let i = 0; i < 24; i++) expect((await api.post('/roles', { code: `lotsen-${i}`, name: `Lotsen ${i}`, permissions: [] })).status).toBe(201);
    const roles = (await api.get('/roles?limit=100')).body.data.length;
    expect(roles).toBeGreaterThan(24);
    // Activity's filter: every role created (the seeding's and these), as the API pages them
    let created = 0;
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const res = await api.get(`/audit?action=role.created&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      created += res.body.data.length;
      cursor = res.body.nextCursor;
    }
    suite.app.deps.config.webhookAllowPrivate = true;
    const hook = await api.post('/webhooks', { url: 'http://127.0.0.1:9/hook', enabled: false });
    expect(hook.status).toBe(201);
    // deliveries as the dispatcher queues them (none runs here): 20 pending, 3 failed
    for (const [status, n] of [
      ['pending', 20],
      ['failed', 3],
    ] as const) {
      await suite.app.em().execute(
        `insert into webhook_deliveries (id, endpoint_id, message_id, event_type, payload, status, created_at)
           select gen_random_uuid(), ?, 'msg_' || gen_random_uuid(), 'webhook.test', '{}', ?, date_trunc('milliseconds', now()) from generate_series(1, ?)`,
        [hook.body.id, status, n],
      );
    }

    const de = await signedIn('de-DE');
    await de.goto(`${suite.app.url}/roles`);
    const range = de.getByTestId('list-range');
    await expect.poll(() => range.textContent(), { timeout: 15_000 }).toBe(`1–20 von ${roles}`);
    await de.getByRole('button', { name: 'Weiter' }).click();
    await expect.poll(() => range.textContent(), { timeout: 15_000 }).toBe(`21–${roles} von ${roles}`);

    await de.goto(`${suite.app.url}/webhooks/${hook.body.id}`);
    await expect.poll(() => range.textContent(), { timeout: 15_000 }).toBe('1–20 von 23');
    await de.getByLabel('Status', { exact: true }).selectOption('failed');
    await expect.poll(() => range.textContent(), { timeout: 15_000 }).toBe('1–3 von 3');

    const en = await signedIn('en-US');
    await en.goto(`${suite.app.url}/activity?action=role.created`);
    const activityRange = en.getByTestId('list-range');
    await expect.poll(() => activityRange.textContent(), { timeout: 15_000 }).toBe(`1–20 of ${created}`);
    await en.getByLabel('Per page').selectOption('50');
    await expect.poll(() => activityRange.textContent(), { timeout: 15_000 }).toBe(`1–${created} of ${created}`);
    expect(en.url()).toContain('limit=50');
  }, 120_000);
});
