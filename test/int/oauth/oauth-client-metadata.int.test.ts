// SPEC §13, Client ID Metadata Documents: the official SDK client connects with an https `client_id`
// whose document the test serves, and the consent names it verified; the document is fetched once
// (cached); a loopback document is never fetched unless OAUTH_ALLOW_PRIVATE_CLIENTS; a redirect, an
// oversized document or one naming another client is refused.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { seedHuman } from '../../support/sessions.js';
import { consentDecision, consentDetails, CookieJar, pkcePair, servePublicUrl, startAuthorization } from '../../support/oauth.js';

const REDIRECT = 'http://127.0.0.1:9/cimd-callback';

// The document server's certificate is self-signed, made here; the service's fetch of it (a normal https
// fetch, as in production) is told to accept it by the one switch Node's fetch reads per connection. Set
// for this file only (beforeAll, restored in afterAll): files share their worker's process (isolate: false),
// and a later file's https must check certificates again.
const savedTlsReject = process.env.NODE_TLS_REJECT_UNAUTHORIZED;

/** What the document server answers per path, and every path it was asked for. */
const answers = new Map<string, { status: number; body: string; headers?: Record<string, string> }>();
const hits: string[] = [];
let docs: Server;
let origin: string;
let open: TestApp; // OAUTH_ALLOW_PRIVATE_CLIENTS=true: the documents on 127.0.0.1 may be fetched
let strict: TestApp; // the default: never fetched from loopback

function document(path: string, extra: Record<string, unknown> = {}): string {
  const url = `${origin}${path}`;
  answers.set(path, {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'max-age=600' },
    body: JSON.stringify({
      client_id: url,
      client_name: 'Metadata document client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...extra,
    }),
  });
  return url;
}

beforeAll(async () => {
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  const dir = mkdtempSync(join(tmpdir(), 'cimd-'));
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem')],
    {
      stdio: 'ignore',
    },
  );
  docs = createServer({ key: readFileSync(join(dir, 'k.pem')), cert: readFileSync(join(dir, 'c.pem')) }, (req, res) => {
    hits.push(req.url ?? '');
    const a = answers.get(req.url ?? '') ?? { status: 404, body: '{}' };
    res.writeHead(a.status, a.headers ?? { 'content-type': 'application/json' }).end(a.body);
  });
  docs.listen(0, '127.0.0.1');
  await once(docs, 'listening');
  origin = `https://127.0.0.1:${(docs.address() as { port: number }).port}`;
  open = await startTestApp({ oauthAllowPrivateClients: true });
  servePublicUrl(open);
  strict = await startTestApp();
  servePublicUrl(strict);
});
afterAll(async () => {
  docs?.close();
  await open?.close();
  await strict?.close();
  if (savedTlsReject === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  else process.env.NODE_TLS_REJECT_UNAUTHORIZED = savedTlsReject;
});

/** An MCP client that names itself by its metadata document; the browser step is the test's. */
class DocumentClient implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  constructor(readonly clientMetadataUrl: string) {}
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Metadata document client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' };
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

/** The person's part over HTTP (the consent page's own API): follow the authorization URL, allow, come back with the code. */
async function allow(app: TestApp, url: URL, session: string) {
  const jar = new CookieJar();
  const start = await fetch(url, { redirect: 'manual' });
  jar.take(start);
  expect(start.status, await start.clone().text()).toBe(303);
  const uid = start.headers.get('location')!.split('/').pop()!;
  const details = await consentDetails(app, jar, uid, session);
  expect(details.status).toBe(200);
  const decision = await consentDecision(app, jar, uid, session, { decision: 'allow', csrfToken: details.json.csrfToken });
  expect(decision.status, JSON.stringify(decision.json)).toBe(200);
  const resumed = await fetch(new URL(decision.json.redirectTo, app.url), { redirect: 'manual', headers: { cookie: jar.header() } });
  const back = new URL(resumed.headers.get('location')!, app.url);
  return { client: details.json.client, code: back.searchParams.get('code')!, iss: back.searchParams.get('iss') };
}

describe('a client known by its metadata document', () => {
  it('the SDK client connects with it (no registration), the consent names it verified, and it is fetched once', async () => {
    const url = document('/sdk-client.json');
    const person = await seedHuman(open, ['tensions:read']);
    const provider = new DocumentClient(url);
    const first = new StreamableHTTPClientTransport(new URL(`${open.url}/mcp`), { authProvider: provider });
    await expect(new Client({ name: 'cimd', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.info?.client_id).toBe(url);
    expect(provider.authorizationUrl?.searchParams.get('client_id')).toBe(url);
    const { client, code, iss } = await allow(open, provider.authorizationUrl!, person.token);
    expect(client).toMatchObject({ id: url, name: 'Metadata document client', verified: true, redirectHost: '127.0.0.1:9' });
    expect(iss).toBe(open.url);
    await first.finishAuth(code);
    const mcp = new Client({ name: 'cimd', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${open.url}/mcp`), { authProvider: provider }));
    const who = await mcp.callTool({ name: 'whoami', arguments: {} });
    expect(JSON.stringify(who.structuredContent)).toContain(person.userId);
    await mcp.close();
    // a second authorization of the same client reads the cached document (max-age 600)
    const again = await startAuthorization(open, new CookieJar(), { clientId: url, challenge: pkcePair().challenge, redirectUri: REDIRECT });
    expect(again.status).toBe(303);
    expect(hits.filter((h) => h === '/sdk-client.json')).toHaveLength(1);
  });

  it('is never fetched from a loopback address on the default configuration', async () => {
    const url = document('/loopback.json');
    const res = await startAuthorization(strict, new CookieJar(), { clientId: url, redirectUri: REDIRECT });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
    expect(hits).not.toContain('/loopback.json');
  });

  it('refuses a document that redirects, one over 5 KiB, one naming another client, and an http client_id', async () => {
    answers.set('/moved.json', { status: 302, body: '', headers: { location: document('/target.json') } });
    const refused: [string, string][] = [
      [`${origin}/moved.json`, 'invalid_client'],
      [document('/big.json', { client_uri: `https://example.com/${'x'.repeat(6 * 1024)}` }), 'invalid_client'],
      [document('/other.json', { client_id: `${origin}/someone-else.json` }), 'invalid_client_metadata'],
      ['http://127.0.0.1:9/plain.json', 'invalid_client'],
    ];
    for (const [clientId, error] of refused) {
      const res = await startAuthorization(open, new CookieJar(), { clientId, redirectUri: REDIRECT });
      expect(res.status, clientId).toBe(400);
      expect((await res.json()).error, clientId).toBe(error);
    }
    expect(hits).not.toContain('/target.json');
  });
});
