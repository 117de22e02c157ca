import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { GRAPHQL_LIMITS } from '../../../server/graphql/yoga.js';

let app: TestApp;
let locked: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  locked = await startTestApp({ introspection: false, graphiql: false });
});
afterAll(async () => {
  await app?.close();
  await locked?.close();
});

describe('HTTP hardening', () => {
  it('sends security headers and no X-Powered-By', async () => {
    const res = await fetch(`${app.url}/healthz`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('sends no CORS allowance to a foreign origin', async () => {
    const res = await fetch(`${app.url}/api/v1/tensions`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('GraphQL limits', () => {
  it('refuses documents with too many aliases or tokens', async () => {
    const agent = await seedUserWithKey(app, { grants: [] });
    const gql = client(app, agent.key).gql;
    const aliases = Array.from({ length: GRAPHQL_LIMITS.maxAliases + 5 }, (_, i) => `a${i}: health`).join(' ');
    const tooManyAliases = await gql(`{ ${aliases} }`);
    expect(tooManyAliases.body.errors?.[0]?.message).toMatch(/alias/i);
    const fine = await gql('{ a: health b: health }');
    expect(fine.body).toEqual({ data: { a: 'ok', b: 'ok' } });
  });

  it('refuses introspection when configured off for production', async () => {
    const agent = await seedUserWithKey(locked, { grants: [] });
    const res = await client(locked, agent.key).gql('{ __schema { queryType { name } } }');
    expect(res.body.errors?.[0]?.message).toMatch(/introspection/i);
    const open = await client(app, (await seedUserWithKey(app, { grants: [] })).key).gql('{ __schema { queryType { name } } }');
    expect(open.body.data.__schema.queryType.name).toBe('Query');
  });

  it('does not serve GraphiQL when configured off', async () => {
    const res = await fetch(`${locked.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(await res.text()).not.toContain('GraphiQL');
  });
});
