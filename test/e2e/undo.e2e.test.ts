// Undo where it is honest (issue 36): a drop's message offers Undo, which revives the tension at the version
// the drop produced (another client's change since is a version conflict, not overwritten); a discard and a
// key revocation say plainly that they cannot be undone, with no Undo button. English and German.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { client, seedUserWithKey } from '../support/clients.js';
import { browserSuite } from '../support/browser.js';

let api: ReturnType<typeof client>;
let actor = '';

const suite = browserSuite();

beforeAll(async () => {
  api = client(suite.app, (await seedUserWithKey(suite.app, { grants: ['*'], name: 'Seeder' })).key);
  actor = (await api.post('/actors', { name: 'Harbour Co', type: 'organization' })).body.id;
});

const signedIn = (lang: 'en' | 'de'): Promise<Page> => suite.signIn({ locale: lang === 'de' ? 'de-DE' : 'en-US', timeoutMs: 20_000 });

const newTension = async (name: string): Promise<string> => (await api.post('/tensions', { name, actorId: actor })).body.tension.id;

describe('undo where it is honest', () => {
  it('drop → Undo → alive again, through a revive at the version the drop produced (en)', async () => {
    const id = await newTension('Undo me');
    const page = await signedIn('en');
    await page.goto(`${suite.app.url}/tensions/${id}`);
    await page.getByRole('button', { name: 'Drop' }).click();
    const said = page.getByRole('status').filter({ hasText: 'Dropped as stale.' });
    await said.waitFor();
    expect((await api.get(`/tensions/${id}`)).body).toMatchObject({ state: 'stale', version: 2 });
    await said.getByRole('button', { name: 'Undo' }).click();
    await page.getByText('Revived: the tension is alive again.').waitFor();
    const after = (await api.get(`/tensions/${id}`)).body;
    expect(after).toMatchObject({ state: 'alive', version: 3 });
    const history = (await api.get(`/tensions/${id}/history`)).body.data.map((e: { type: string }) => e.type);
    expect(history).toContain('TensionRevived');
    // the revival's own message offers nothing to undo
    await expect(page.getByRole('button', { name: 'Undo' }).count()).resolves.toBe(0);
  });

  it('an Undo after another client changed the tension is a version conflict, and their change stays (de)', async () => {
    const id = await newTension('Nicht überschreiben');
    const page = await signedIn('de');
    await page.goto(`${suite.app.url}/tensions/${id}`);
    await page.getByRole('button', { name: 'Ruhen lassen' }).click();
    const said = page.getByRole('status').filter({ hasText: 'Ruhen gelassen.' });
    await said.waitFor();
    // someone else revives and renames it meanwhile (versions 3 and 4)
    expect((await api.post(`/tensions/${id}/revive`, {})).status).toBe(200);
    expect((await api.post(`/tensions/${id}/drop`, {})).status).toBe(200);
    await said.getByRole('button', { name: 'Rückgängig' }).click();
    await page.getByRole('alert').getByRole('button', { name: 'Neu laden' }).waitFor();
    expect((await api.get(`/tensions/${id}`)).body).toMatchObject({ state: 'stale', version: 4 });
  });

  it('after Discard the list says it cannot be undone, and offers no Undo (en)', async () => {
    const id = await newTension('Gone for good');
    const page = await signedIn('en');
    await page.goto(`${suite.app.url}/tensions/${id}`);
    await page.getByRole('button', { name: 'Discard' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Discard' }).click();
    await page.getByText('The tension was discarded. This cannot be undone; its history stays readable.').waitFor();
    await expect(page.getByRole('button', { name: 'Undo' }).count()).resolves.toBe(0);
  });

  it('after revoking a key the page says it cannot be undone, and offers no Undo (de)', async () => {
    const agent = (await api.post('/users', { type: 'agent', email: 'undo-bot@test.example', name: 'Undo bot' })).body;
    await api.post(`/users/${agent.id}/api-keys`, { name: 'billing' });
    const page = await signedIn('de');
    await page.goto(`${suite.app.url}/users/${agent.id}`);
    await page.getByRole('button', { name: 'Widerrufen: billing' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Widerrufen' }).click();
    await page.getByText('Schlüssel „billing“ wurde widerrufen. Das lässt sich nicht rückgängig machen').waitFor();
    await expect(page.getByRole('button', { name: 'Rückgängig' }).count()).resolves.toBe(0);
    // "Done to this user" holds what was done to its keys too (aboutUserId)
    const activity = page.getByRole('tabpanel');
    await activity.getByText('API-Schlüssel widerrufen').waitFor();
    await activity.getByText('API-Schlüssel bereitgestellt').waitFor();
  });
});
