// Bulk actions on tensions (issue 36): all 50 tensions matching a filter resolved in one run, each through its
// own command and event, with the 2 that another client discarded meanwhile listed by name and reason; in
// German a reassignment of a page with one failure. axe finds nothing serious with the results shown.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { client, seedUserWithKey } from '../support/clients.js';
import { browserSuite, pick, screenshot } from '../support/browser.js';
import { seriousViolations } from '../support/axe.js';

let api: ReturnType<typeof client>;
let actor = '';

const suite = browserSuite();

beforeAll(async () => {
  api = client(suite.app, (await seedUserWithKey(suite.app, { grants: ['*'], name: 'Seeder' })).key);
  actor = (await api.post('/actors', { name: 'Harbour Co', type: 'organization' })).body.id;
  await api.post('/actors', { name: 'Zollamt', type: 'organization' });
});

const signedIn = (lang: 'en' | 'de'): Promise<Page> => suite.signIn({ locale: lang === 'de' ? 'de-DE' : 'en-US', timeoutMs: 20_000 });

async function seed(prefix: string, n: number): Promise<{ id: string; name: string }[]> {
  const out: { id: string; name: string }[] = [];
  for (let i = 0; i < n; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, n - i) }, (_, j) => {
        const name = `${prefix} ${String(i + j + 1).padStart(2, '0')}`;
        return api.post('/tensions', { name, actorId: actor }).then((r) => ({ id: r.body.tension.id as string, name }));
      }),
    );
    out.push(...batch);
  }
  return out;
}

const eventsOf = async (type: string, ids: string[]) =>
  Number(
    (
      await suite.app
        .em()
        .execute<{ n: string }[]>(`select count(*)::text as n from domain_events where stream_type = 'tension' and type = ? and stream_id = any(?::uuid[])`, [
          type,
          `{${ids.join(',')}}`,
        ])
    )[0].n,
  );

describe('bulk actions on tensions', () => {
  it('resolves all 50 matching a filter, one command each, and lists the 2 that failed with their reason (en)', async () => {
    const items = await seed('Bulk quote', 50);
    await seed('Unrelated', 3);
    const page = await signedIn('en');
    await page.goto(`${suite.app.url}/tensions?q=Bulk%20quote`);
    await page.getByRole('link', { name: 'Bulk quote', exact: false }).first().waitFor();
    await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
    await page.getByText('20 selected').waitFor();
    await page.getByRole('button', { name: 'Select all matching this filter' }).click();
    await page.getByText('50 selected').waitFor();

    // another client discards two of them after they were selected
    const gone = [items[7], items[33]];
    for (const g of gone) expect((await api.del(`/tensions/${g.id}`)).status).toBe(204);

    await page.getByRole('region', { name: 'Bulk actions' }).getByRole('button', { name: 'Resolve' }).click();
    const progress = page.getByTestId('bulk-progress');
    await progress.getByText('48 done, 2 failed, 0 not started.').waitFor();
    expect(await progress.getByRole('status').textContent()).toBe('50 of 50 done');
    const failures = await progress
      .locator('table tbody tr')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())));
    expect(failures.sort()).toEqual(gone.map((g) => [g.name, 'This no longer exists. It may have been deleted.']).sort());
    await screenshot(page, 'bulk-en');

    const resolved = await api.gql('{ tensions(state: resolved, q: "Bulk quote", limit: 100) { data { id } } }');
    const resolvedIds = resolved.body.data.tensions.data.map((t: { id: string }) => t.id).sort();
    expect(resolvedIds).toEqual(
      items
        .filter((i) => !gone.includes(i))
        .map((i) => i.id)
        .sort(),
    );
    // each its own command: one TensionResolved event per tension, none for the discarded two
    expect(await eventsOf('TensionResolved', resolvedIds)).toBe(48);
    expect(
      await eventsOf(
        'TensionResolved',
        gone.map((g) => g.id),
      ),
    ).toBe(0);
    // the unrelated tensions were not touched
    expect((await api.gql('{ tensions(state: alive, q: "Unrelated", limit: 100) { data { id } } }')).body.data.tensions.data).toHaveLength(3);

    expect(await seriousViolations(page)).toEqual([]);
  }, 180_000);

  it('reassigns a page of tensions and names the one that failed, in German (de)', async () => {
    const items = await seed('Zweite Runde', 5);
    const page = await signedIn('de');
    await page.goto(`${suite.app.url}/tensions?q=Zweite%20Runde`);
    await page.getByRole('link', { name: 'Zweite Runde 01' }).waitFor();
    await page.getByRole('checkbox', { name: 'Alle auf dieser Seite auswählen' }).check();
    await page.getByText('5 ausgewählt').waitFor();
    expect(await page.getByRole('button', { name: 'Alle zu diesem Filter passenden auswählen' }).count()).toBe(0);
    expect((await api.del(`/tensions/${items[2].id}`)).status).toBe(204);
    await page.getByRole('region', { name: 'Sammelaktionen' }).getByRole('button', { name: 'Neu zuordnen…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Neu zuordnen' });
    await pick(dialog, 'Akteur', 'Zollamt');
    await dialog.getByRole('button', { name: 'Auf 5 anwenden' }).click();
    const progress = page.getByTestId('bulk-progress');
    await progress.getByText('4 erledigt, 1 fehlgeschlagen, 0 nicht begonnen.').waitFor();
    await progress.getByRole('cell', { name: 'Das gibt es nicht mehr. Es wurde vielleicht gelöscht.' }).waitFor();
    await progress.getByRole('link', { name: 'Zweite Runde 03' }).waitFor();
    await screenshot(page, 'bulk-de');
    const moved = await api.gql('{ tensions(q: "Zweite Runde", limit: 100) { data { actor { name } } } }');
    expect(moved.body.data.tensions.data.map((t: { actor: { name: string } }) => t.actor.name)).toEqual(['Zollamt', 'Zollamt', 'Zollamt', 'Zollamt']);
    expect(
      await eventsOf(
        'TensionReassigned',
        items.map((i) => i.id),
      ),
    ).toBe(4);
  }, 180_000);
});

describe('bulk deactivation of users', () => {
  it('deactivates the selected users of a page, each on its own, after a confirmation (en)', async () => {
    const ids: string[] = [];
    for (const n of ['01', '02', '03']) {
      const r = await api.post('/users', { type: 'agent', email: `bulk-agent-${n}@test.example`, name: `Bulk agent ${n}` });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      ids.push(r.body.id);
    }
    const page = await signedIn('en');
    await page.goto(`${suite.app.url}/users?q=Bulk%20agent`);
    await page.getByRole('link', { name: 'Bulk agent 01' }).waitFor();
    await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
    await page.getByText('3 selected').waitFor();
    await page.getByRole('region', { name: 'Bulk actions' }).getByRole('button', { name: 'Deactivate…' }).click();
    await page.getByRole('dialog', { name: 'Deactivate' }).getByRole('button', { name: 'Apply to 3' }).click();
    await page.getByTestId('bulk-progress').getByText('3 done, 0 failed, 0 not started.').waitFor();
    for (const id of ids) expect((await api.get(`/users/${id}`)).body.status).toBe('deactivated');
    const audit = await api.gql('{ auditLog(action: "user.deactivated", limit: 100) { data { target { id } } } }');
    expect(audit.body.data.auditLog.data.map((e: { target: { id: string } }) => e.target.id).sort()).toEqual([...ids].sort());
  }, 120_000);
});
