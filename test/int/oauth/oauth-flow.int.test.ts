// SPEC §13 over HTTP: metadata, registration, code + PKCE + resource, consent, tokens on /mcp and nowhere else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { seedHuman } from '../../support/sessions.js';
import { authorizeCode, exchangeCode, registerClient, servePublicUrl } from '../../support/oauth.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  servePublicUrl(app);
});
afterAll(async () => app?.close());

describe('OAuth for /mcp', () => {
  it('publishes RFC 9728 and RFC 8414 metadata', async () => {
    const prm = await (await fetch(`${app.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(prm).toMatchObject({ resource: `${app.url}/mcp`, authorization_servers: [app.url], bearer_methods_supported: ['header'] });
    expect(prm.scopes_supported).toContain('tensions:read');
    const as = await (await fetch(`${app.url}/.well-known/oauth-authorization-server`)).json();
    expect(as).toMatchObject({
      issuer: app.url,
      authorization_endpoint: `${app.url}/oauth/authorize`,
      token_endpoint: `${app.url}/oauth/token`,
      registration_endpoint: `${app.url}/oauth/register`,
      revocation_endpoint: `${app.url}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
    expect(as.token_endpoint_auth_methods_supported).toContain('none');
    expect(as.response_types_supported).toEqual(['code']);
    expect(as.grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
  });

  it('runs the whole flow and the token works on /mcp', async () => {
    const person = await seedHuman(app, ['tensions:read', 'tensions:write']);
    const reg = await registerClient(app);
    expect(reg.status).toBe(201);
    const { code, iss, verifier, back } = await authorizeCode(app, person.token, reg.json.client_id);
    expect(back.searchParams.get('error'), back.href).toBeNull();
    expect(back.pathname, back.href).toBe('/callback');
    expect(iss).toBe(app.url);
    const tokens = await exchangeCode(app, reg.json.client_id, code!, verifier);
    expect(tokens.status, JSON.stringify(tokens.json)).toBe(200);
    expect(tokens.json.refresh_token).toBeTypeOf('string');
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.json.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(res.status).toBe(200);
  });
});
