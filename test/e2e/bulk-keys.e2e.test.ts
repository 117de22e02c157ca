// Bulk revocation of an agent's keys (issue 36): the page's active keys selected and revoked, one
// revokeApiKey each (its own audit entry), the one that vanished meanwhile listed by name and reason, the
// rest revoked and refused by the API from their next request. German.
import { beforeAll, describe, expect, it } from 'vitest';
import { client, seedUserWithKey } from '../support/clients.js';
import { browserSuite } from '../support/browser.js';

let api: ReturnType<typeof client>;

const suite = browserSuite();

beforeAll(async () => {
  api = client(suite.app, (await seedUserWithKey(suite.app, { grants: ['*'], name: 'Seeder' })).key);
});

describe('bulk key revocation', () => {
  it('revokes the selected keys one request each and lists the one that failed with its reason (de)', async () => {
    const agent = (await api.post('/users', { type: 'agent', email: 'bulk-keys@test.example', name: 'Schlüsselbot' })).body;
    const keys: { id: string; name: string; prefix: string; key: string }[] = [];
    for (const name of ['eins', 'zwei', 'drei', 'vier', 'fünf']) keys.push((await api.post(`/users/${agent.id}/api-keys`, { name })).body);
    const kept = keys[4];
    const page = await suite.signIn({ locale: 'de-DE', timeoutMs: 20_000 });
    await page.goto(`${suite.app.url}/users/${agent.id}`);
    await page.getByRole('checkbox', { name: `${keys[0].name} (${keys[0].prefix}…) auswählen` }).waitFor();
    await page.getByRole('checkbox', { name: 'Alle auf dieser Seite auswählen' }).check();
    await page.getByRole('checkbox', { name: `${kept.name} (${kept.prefix}…) auswählen` }).uncheck();
    await page.getByText('4 ausgewählt').waitFor();

    // one selected key vanishes meanwhile (its row deleted): its revocation is refused as not found
    const gone = keys[1];
    await suite.app.em().execute('delete from api_keys where id = ?', [gone.id]);

    await page.getByRole('region', { name: 'Sammelaktionen' }).getByRole('button', { name: 'Widerrufen…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('4 Schlüssel widerrufen? ').waitFor();
    await dialog.getByText('Das lässt sich nicht rückgängig machen.', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Auf 4 anwenden' }).click();
    const progress = page.getByTestId('bulk-progress');
    await progress.getByText('3 erledigt, 1 fehlgeschlagen, 0 nicht begonnen.').waitFor();
    const failure = progress.getByRole('row', { name: new RegExp(`${gone.name} \\(${gone.prefix}…\\)`) });
    await failure.getByText('Das gibt es nicht mehr', { exact: false }).waitFor();

    // three revoked (one audit entry each), the unselected one still works
    const listed = (await api.get(`/users/${agent.id}/api-keys`)).body.data as { id: string; revokedAt: string | null }[];
    expect(
      listed
        .filter((k) => k.revokedAt)
        .map((k) => k.id)
        .sort(),
    ).toEqual([keys[0].id, keys[2].id, keys[3].id].sort());
    expect(listed.find((k) => k.id === kept.id)?.revokedAt).toBeNull();
    const audit = (await api.get(`/audit?action=key.revoked&limit=100`)).body.data as { target: { id: string } }[];
    expect(audit.map((e) => e.target.id).sort()).toEqual([keys[0].id, keys[2].id, keys[3].id].sort());
    // a revoked key is refused (401), the unselected one still authenticates (its agent holds no role: 403)
    expect((await client(suite.app, keys[0].key).get('/tensions')).status).toBe(401);
    expect((await client(suite.app, kept.key).get('/tensions')).status).toBe(403);
  });
});
