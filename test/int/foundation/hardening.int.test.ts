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
  // Each limit of GRAPHQL_LIMITS with a document exactly at it (answered) and one just over it (refused,
  // naming the limit). The documents are built so that only the limit under test comes near its bound.
  const nest = (levels: number, inner: string, directive = '') => `${`... ${directive}{ `.repeat(levels)}${inner}${' }'.repeat(levels)}`;
  /** graphql-armor's cost of `levels` nested inline fragments around `leaves` scalars (object 2, scalar 1, ×1.5 per level) */
  const nestedCost = (levels: number, leaves: number) => Array.from({ length: levels }).reduce<number>((inner) => 2 + 1.5 * inner, leaves);
  const leavesForCost = (levels: number, max: number) => {
    let leaves = 1;
    while (nestedCost(levels, leaves + 1) <= max) leaves++;
    return leaves;
  };

  let key: string;
  beforeAll(async () => {
    key = (await seedUserWithKey(app, { grants: [] })).key;
  });
  async function post(query: string, operationName?: string) {
    const res = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, ...(operationName ? { operationName } : {}) }),
    });
    return { status: res.status, body: await res.json() };
  }

  async function expectAnswered(document: string, operationName?: string) {
    const res = await post(document, operationName);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    expect(res.body.data).toMatchObject({ health: 'ok' });
    return res.body.data;
  }

  async function expectRefused(document: string, limit: RegExp, operationName?: string) {
    const res = await post(document, operationName);
    expect(res.status).toBeLessThan(500);
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors?.[0]?.message).toMatch(limit);
    expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  }

  it(`depth: ${GRAPHQL_LIMITS.maxDepth} levels answered, one more refused`, async () => {
    // every inline fragment is a level, so a flat schema can still be nested deep
    await expectAnswered(`{ ${nest(GRAPHQL_LIMITS.maxDepth - 1, 'health')} }`);
    await expectRefused(`{ ${nest(GRAPHQL_LIMITS.maxDepth, 'health')} }`, /depth limit/i);
  });

  it(`aliases: ${GRAPHQL_LIMITS.maxAliases} answered, one more refused`, async () => {
    const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: health`).join(' ');
    const data = await expectAnswered(`{ health ${aliases(GRAPHQL_LIMITS.maxAliases)} }`);
    expect(Object.keys(data)).toHaveLength(GRAPHQL_LIMITS.maxAliases + 1);
    await expectRefused(`{ health ${aliases(GRAPHQL_LIMITS.maxAliases + 1)} }`, /alias/i);
  });

  it(`cost: a document costing at most ${GRAPHQL_LIMITS.maxCost} answered, the next one up refused`, async () => {
    const levels = 10;
    const leaves = leavesForCost(levels, GRAPHQL_LIMITS.maxCost);
    expect(nestedCost(levels, leaves + 1)).toBeGreaterThan(GRAPHQL_LIMITS.maxCost);
    await expectAnswered(`{ ${nest(levels, 'health '.repeat(leaves))} }`);
    await expectRefused(`{ ${nest(levels, 'health '.repeat(leaves + 1))} }`, /cost limit/i);
  });

  it(`tokens: a document of ${GRAPHQL_LIMITS.maxTokens} tokens answered, one more refused`, async () => {
    // `query Qn { health }` is 5 tokens; many small operations keep every other limit far away
    const operations = GRAPHQL_LIMITS.maxTokens / 5;
    expect(Number.isInteger(operations)).toBe(true);
    const document = (extra: string) => Array.from({ length: operations }, (_, i) => `query Q${i} { health${i === 0 ? extra : ''} }`).join('\n');
    await expectAnswered(document(''), 'Q1');
    await expectRefused(document(' health'), /token limit/i, 'Q1');
  });

  it(`directives: ${GRAPHQL_LIMITS.maxDirectives} answered, one more refused`, async () => {
    const directives = (n: number) => '... @include(if: true) { health } '.repeat(n);
    await expectAnswered(`{ ${directives(GRAPHQL_LIMITS.maxDirectives)} }`);
    await expectRefused(`{ ${directives(GRAPHQL_LIMITS.maxDirectives + 1)} }`, /directive/i);
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
