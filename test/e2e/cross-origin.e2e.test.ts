// SPEC §6, issue 17 item 4: a page of another origin on the same host (same site, so the SameSite=Strict
// session cookie does travel) cannot drive the signed-in admin's session through /graphql: it cannot read
// `me`, and its `createUser` creates nobody. A control shows the same script works from the service's own
// origin, so the refusal is the server's doing, not a broken script.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN, startTestApp, type TestApp } from '../support/app.js';
import { ensureWebBuild, launchBrowser } from '../support/browser.js';

let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let attacker: Server;
let attackerUrl: string;

beforeAll(async () => {
  ensureWebBuild();
  browser = await launchBrowser();
  app = await startTestApp();
  // Another port on the same host: cross-origin, same site.
  attacker = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title><p>elsewhere</p>'));
  await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', () => r()));
  const address = attacker.address();
  attackerUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
  context = await browser.newContext({ locale: 'en-US' });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await new Promise<void>((r) => (attacker ? attacker.close(() => r()) : r()));
  await app?.close();
});

interface Attempt {
  name: string;
  read: boolean;
  status?: number;
  body?: string;
  error?: string;
}

/** Runs in the page: every way a script could try the admin's session against /graphql. */
async function attempts(page: Page, service: string, email: string): Promise<Attempt[]> {
  return page.evaluate(
    async ({ service, email }) => {
      const createUser = JSON.stringify({
        query: 'mutation($input: CreateUserInput!) { createUser(input: $input) { id email } }',
        variables: { input: { type: 'human', email, name: 'Cross-origin admin', password: 'cross-origin-password-1' } },
      });
      const me = JSON.stringify({ query: '{ me { user { email } permissions } }' });
      const json = { 'content-type': 'application/json', 'x-csrf-protection': '1' };
      const tries: [string, RequestInit, string?][] = [
        ['createUser (JSON, CSRF header: preflighted)', { method: 'POST', credentials: 'include', headers: json, body: createUser }],
        ['me (JSON, CSRF header: preflighted)', { method: 'POST', credentials: 'include', headers: json, body: me }],
        ['createUser (text/plain: a simple request)', { method: 'POST', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: createUser }],
        ['createUser (no-cors)', { method: 'POST', credentials: 'include', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: createUser }],
        ['me (GET)', { method: 'GET', credentials: 'include' }, `?query=${encodeURIComponent('{ me { user { email } } }')}`],
      ];
      const out = [];
      for (const [name, init, query] of tries) {
        try {
          const res = await fetch(`${service}/graphql${query ?? ''}`, init);
          const body = await res.text();
          // An opaque (no-cors) answer has status 0 and no body: nothing was read.
          out.push({ name, read: res.type !== 'opaque', status: res.status, body: body.slice(0, 4000) });
        } catch (err) {
          out.push({ name, read: false, error: String(err) });
        }
      }
      return out;
    },
    { service, email },
  );
}

async function usersWithEmail(email: string): Promise<number> {
  const [{ n }] = await app.em().execute<{ n: string }[]>('select count(*)::text as n from users where email = ?', [email]);
  return Number(n);
}

describe('a page on another port of the same host', () => {
  it("cannot read the admin's answers nor create a user with the admin's session cookie", async () => {
    const admin = await context.newPage();
    await admin.goto(`${app.url}/`);
    await admin.getByLabel('Email').fill(ADMIN.email);
    await admin.getByLabel('Password').fill(ADMIN.password);
    await admin.getByRole('button', { name: 'Sign in' }).click();
    await admin.getByRole('heading', { name: 'Tensions' }).waitFor();
    expect((await context.cookies(app.url)).map((c) => c.name)).toContain('session');

    const page = await context.newPage();
    await page.goto(attackerUrl);
    const email = 'cross-origin@test.example';
    const results = await attempts(page, app.url, email);
    expect(results).toHaveLength(5);
    for (const r of results) expect(r.read, `${r.name}: ${JSON.stringify(r)}`).toBe(false);
    expect(await usersWithEmail(email)).toBe(0);
    // And the answers carried no allowance the browser could have used.
    const probe = await fetch(`${app.url}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: new URL(attackerUrl).origin, 'access-control-request-method': 'POST' },
    });
    expect(probe.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("control: the same script from the service's own origin reads `me` and creates the user", async () => {
    const page = await context.newPage();
    await page.goto(`${app.url}/`);
    await page.getByRole('heading', { name: 'Tensions' }).waitFor();
    const email = 'same-origin@test.example';
    const [create, me] = await attempts(page, app.url, email);
    expect(create.read, JSON.stringify(create)).toBe(true);
    expect(JSON.parse(create.body!).data.createUser.email).toBe(email);
    expect(JSON.parse(me.body!).data.me.user.email).toBe(ADMIN.email);
    expect(await usersWithEmail(email)).toBe(1);
  });
});
