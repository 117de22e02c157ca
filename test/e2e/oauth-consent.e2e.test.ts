// SPEC §13 end to end: the official SDK client's OAuth support (discovery, registration, PKCE) against the
// service, with Chromium signing in and clicking Allow on the admin app's consent page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { ensureWebBuild, launchBrowser, screenshot } from '../support/browser.js';
import { PASSWORD, seedHuman } from '../support/sessions.js';
import { servePublicUrl } from '../support/oauth.js';

const REDIRECT = 'http://127.0.0.1:9/oauth-callback';

/** What an MCP client keeps between runs, in memory; the browser step is the test's. */
class MemoryProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK test client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let app: TestApp;
let browser: Browser;
beforeAll(async () => {
  ensureWebBuild();
  app = await startTestApp();
  servePublicUrl(app);
  browser = await launchBrowser();
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** Runs the browser part: sign in, narrow if asked, Allow; returns the code the redirect carried. */
async function consentInBrowser(url: URL, email: string, narrowTo: string | null): Promise<string> {
  const page = await browser.newPage();
  await page.goto(url.href);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: /SDK test client wants to use the market service/ }).waitFor();
  await page.getByText('not verified').first().waitFor();
  if (narrowTo) {
    await page.getByLabel('Only these permissions').check();
    await page.locator(`input[name="keyPermission"][value="${narrowTo}"]`).check();
  }
  await screenshot(page, narrowTo ? 'oauth-consent-narrowed' : 'oauth-consent');
  // The redirect back is the last request the page makes; nothing answers it (port 9, which browsers refuse to
  // connect to). The request is what an MCP client's callback would receive. Not page.route: Playwright hands a
  // route the first request of a redirect chain only, and this one is the consent POST's redirect.
  const callback = page.waitForRequest((request) => request.url().startsWith(REDIRECT), { timeout: 15_000 });
  await page.getByRole('button', { name: 'Allow' }).click();
  const back = new URL((await callback).url());
  expect(back.searchParams.get('iss')).toBe(app.url);
  const code = back.searchParams.get('code');
  expect(code).toBeTypeOf('string');
  await page.close();
  return code!;
}

async function connectWithOAuth(email: string, narrowTo: string | null): Promise<Client> {
  const provider = new MemoryProvider();
  const first = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { authProvider: provider });
  const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
  await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.info?.client_id).toBeTypeOf('string');
  expect(provider.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
  expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(`${app.url}/mcp`);
  const code = await consentInBrowser(provider.authorizationUrl!, email, narrowTo);
  await first.finishAuth(code);
  const connected = new Client({ name: 'oauth-e2e', version: '1.0.0' });
  await connected.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { authProvider: provider }));
  return connected;
}

describe('connecting an MCP client by OAuth', () => {
  it('discovers, registers, signs in through the browser, allows, then lists tools and calls whoami', async () => {
    const person = await seedHuman(app, ['tensions:read', 'tensions:write', 'actors:read']);
    const mcp = await connectWithOAuth(person.email, null);
    const tools = (await mcp.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('sense_tension');
    const who = await mcp.callTool({ name: 'whoami', arguments: {} });
    expect(JSON.stringify(who.structuredContent ?? who.content)).toContain(person.userId);
    await mcp.close();
  }, 120_000);

  it('a grant narrowed to tensions:read in the browser shows no write tools', async () => {
    const person = await seedHuman(app, ['tensions:read', 'tensions:write']);
    const mcp = await connectWithOAuth(person.email, 'tensions:read');
    const tools = (await mcp.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('list_tensions');
    expect(tools).not.toContain('sense_tension');
    await mcp.close();
  }, 120_000);
});
