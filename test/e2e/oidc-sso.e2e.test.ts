// Single sign-on through a real OpenID provider (SPEC §16): oidc-provider on 127.0.0.1 with its dev login,
// driven through Chromium from the admin app's "Sign in with …" button. Each sign-in runs in a fresh browser
// context, so the provider asks again and the account typed there is the one that signs in.
import { randomUUID } from 'node:crypto';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app.js';
import { seedHuman, sessionClient } from '../support/sessions.js';
import { seedUserWithKey, systemCtx, unwrap } from '../support/clients.js';
import { ensureWebBuild, launchBrowser, screenshot } from '../support/browser.js';
import { startTestIdp, type TestIdp } from '../support/oidc-idp.js';
import { createRole } from '../../server/application/roles/roles.js';
import { deactivateUser, setUserRoles } from '../../server/application/users/users.js';

let app: TestApp;
let idp: TestIdp;
let browser: Browser;
const roles: Record<'ops' | 'reader' | 'handGiven', { id: string; code: string }> = {} as never;

beforeAll(async () => {
  ensureWebBuild();
  browser = await launchBrowser();
  app = await startTestApp();
  // The callback must be the service's public address, known once it listens.
  app.deps.config.publicUrl = app.url;
  idp = await startTestIdp(`${app.url}/api/v1/auth/oidc/callback`);
  for (const [key, grants] of [
    ['ops', ['tensions:read', 'tensions:write']],
    ['reader', ['tensions:read']],
    ['handGiven', ['actors:read']],
  ] as const) {
    const code = `sso-${key.toLowerCase()}-${randomUUID().slice(0, 6)}`;
    roles[key] = { id: unwrap(await createRole(app.deps, systemCtx(), { code, name: `SSO ${key}`, permissions: [...grants] }), 'role').id, code };
  }
  app.deps.config.oidc = {
    issuer: idp.issuer,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    allowedDomains: [],
    roleClaim: 'groups',
    roleMap: { 'market-ops': roles.ops.code, 'market-readers': roles.reader.code },
    provision: false,
    scopes: 'openid email profile groups',
    displayName: 'Test IdP',
  };
});

afterAll(async () => {
  await browser?.close();
  await idp?.close();
  await app?.close();
});

/**
 * Clicks "Sign in with Test IdP" and signs in at the provider as `email`. `tamper` rewrites the
 * authorization request on its way to the provider (a forged state or nonce).
 */
async function signInWithIdp(email: string, tamper?: (url: URL) => void): Promise<Page> {
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  if (tamper) {
    // The service's redirect to the provider, rewritten as it reaches the browser (its flow cookie unchanged).
    await page.route(`${app.url}/api/v1/auth/oidc/start`, async (route) => {
      const response = await route.fetch({ maxRedirects: 0 });
      const url = new URL(response.headers().location);
      tamper(url);
      await route.fulfill({ response, headers: { ...response.headers(), location: url.href } });
    });
  }
  await page.goto(`${app.url}/`);
  await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
  await page.locator('input[name="login"]').fill(email);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  const consent = page.getByRole('button', { name: 'Continue' });
  await Promise.race([consent.click(), page.waitForURL((u) => u.origin === app.url && !u.pathname.startsWith('/api/'), { timeout: 15_000 })]).catch(
    () => undefined,
  );
  await page.waitForURL((u) => u.origin === app.url && !u.pathname.startsWith('/api/'));
  return page;
}

const rolesOf = (userId: string) =>
  app.em().execute<{ role_id: string; source: string }[]>('select role_id, source from user_roles where user_id = ? order by source, role_id', [userId]);
const userByEmail = async (email: string) =>
  (await app.em().execute<{ id: string; provisioned_by: string | null }[]>('select id, provisioned_by from users where email = ?', [email]))[0];
const lastLogin = async (email: string) =>
  (
    await app
      .em()
      .execute<{ action: string; changes: Record<string, unknown> }[]>(
        `select action, changes from audit_log where target_label = ? and action like 'auth.%' order by at desc limit 1`,
        [email],
      )
  )[0];

describe('single sign-on with an OpenID provider', () => {
  it('signs an existing active human in as that user, audited as a login', async () => {
    const human = await seedHuman(app, ['tensions:read'], 'Ssohuman');
    const page = await signInWithIdp(human.email);
    await page.getByRole('heading', { name: 'Tensions', level: 1 }).waitFor();
    await screenshot(page, 'sso-signed-in');
    const entry = await lastLogin(human.email);
    expect(entry.action).toBe('auth.login');
    expect(entry.changes).toEqual({ method: { from: null, to: 'oidc' } });
    await page.context().close();
  });

  it('refuses an unknown email without provisioning, and creates nobody', async () => {
    const email = `stranger-${randomUUID().slice(0, 6)}@test.example`;
    const page = await signInWithIdp(email);
    await page.getByText('no active operator account here matches the email it confirmed').waitFor();
    expect(new URL(page.url()).searchParams.get('sso_error')).toBe('refused');
    expect(await userByEmail(email)).toBeUndefined();
    expect((await lastLogin(email)).action).toBe('auth.login_failed');
    await page.context().close();
  });

  it("refuses an agent's email and a deactivated human's, even with provisioning on", async () => {
    app.deps.config.oidc!.provision = true;
    try {
      const agent = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:read'] });
      const agentEmail = (await app.em().execute<{ email: string }[]>('select email from users where id = ?', [agent.userId]))[0].email;
      let page = await signInWithIdp(agentEmail);
      await page.getByText('no active operator account here matches the email it confirmed').waitFor();
      await page.context().close();

      const gone = await seedHuman(app, ['tensions:read'], 'Ssogone');
      unwrap(await deactivateUser(app.deps, systemCtx(), gone.userId), 'deactivate');
      page = await signInWithIdp(gone.email);
      await page.getByText('no active operator account here matches the email it confirmed').waitFor();
      await page.context().close();
      expect(
        await app.em().execute('select 1 from sessions where user_id = any(?::uuid[]) and revoked_at is null', [`{${agent.userId},${gone.userId}}`]),
      ).toEqual([]);
    } finally {
      app.deps.config.oidc!.provision = false;
    }
  });

  it('provisions a user with the roles the claim maps to, and follows the claim on the next sign-in, keeping hand-given roles', async () => {
    app.deps.config.oidc!.provision = true;
    try {
      const email = `newcomer-${randomUUID().slice(0, 6)}@test.example`;
      idp.accounts.set(email, { name: 'New Comer', groups: ['market-ops', 'market-readers', 'unmapped-group'] });
      let page = await signInWithIdp(email);
      await page.getByRole('heading', { name: 'Tensions', level: 1 }).waitFor();
      await page.context().close();
      const user = await userByEmail(email);
      expect(user.provisioned_by).toBe('oidc');
      expect(await rolesOf(user.id)).toEqual([roles.ops.id, roles.reader.id].sort().map((role_id) => ({ role_id, source: 'oidc' })));

      // An administrator gives a role by hand; then the provider drops the user from market-ops.
      unwrap(await setUserRoles(app.deps, systemCtx(), user.id, { roleIds: [roles.ops.id, roles.reader.id, roles.handGiven.id] }), 'hand-given');
      idp.accounts.set(email, { name: 'New Comer', groups: ['market-readers'] });
      page = await signInWithIdp(email);
      await page.getByRole('heading', { name: 'Tensions', level: 1 }).waitFor();
      await page.context().close();
      expect(await rolesOf(user.id)).toEqual([
        { role_id: roles.handGiven.id, source: 'manual' },
        { role_id: roles.reader.id, source: 'oidc' },
      ]);
    } finally {
      app.deps.config.oidc!.provision = false;
    }
  });

  it('asks a user with a second factor enrolled here for a code after the provider, then signs in', async () => {
    const human = await seedHuman(app, ['tensions:read'], 'Ssomfa');
    const api = sessionClient(app, human.token);
    const started = await api.post('/me/mfa/totp');
    expect(started.status).toBe(201);
    const confirmed = await api.post('/me/mfa/totp/confirm', { code: await generate({ secret: started.body.secret }) });
    expect(confirmed.status).toBe(200);
    const page = await signInWithIdp(human.email);
    await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
    // the token left the address as soon as the page read it
    expect(new URL(page.url()).hash).toBe('');
    expect(await app.em().execute('select 1 from sessions where user_id = ?', [human.userId])).toHaveLength(1); // seedHuman's own
    await page.getByLabel('Code', { exact: true }).fill(confirmed.body.recoveryCodes[0]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Tensions', level: 1 }).waitFor();
    expect(await app.em().execute('select 1 from sessions where user_id = ?', [human.userId])).toHaveLength(2);
    await page.context().close();
  });

  it('refuses a callback whose state is not the one this browser sent', async () => {
    const human = await seedHuman(app, ['tensions:read'], 'Ssostate');
    const page = await signInWithIdp(human.email, (url) => url.searchParams.set('state', 'forged-state-value'));
    await page.getByText('could not be verified').waitFor();
    expect(new URL(page.url()).searchParams.get('sso_error')).toBe('failed');
    expect(await app.em().execute('select 1 from sessions where user_id = ?', [human.userId])).toHaveLength(1); // seedHuman's own
    await page.context().close();
  });

  it('refuses an ID token whose nonce is not the one this browser sent', async () => {
    const human = await seedHuman(app, ['tensions:read'], 'Ssononce');
    const page = await signInWithIdp(human.email, (url) => url.searchParams.set('nonce', 'forged-nonce-value'));
    await page.getByText('could not be verified').waitFor();
    expect(new URL(page.url()).searchParams.get('sso_error')).toBe('failed');
    expect(await app.em().execute('select 1 from sessions where user_id = ?', [human.userId])).toHaveLength(1);
    await page.context().close();
  });
});
