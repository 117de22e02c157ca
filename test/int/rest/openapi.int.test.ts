// The OpenAPI document against the real app: every /api/v1 route documented, every documented route real,
// the document's schemas agreeing with what the routes accept and answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { buildApp } from '../../../server/app.js';
import { openApiPath } from '../../../server/rest/openapi.js';

type Layer = {
  handle: { stack?: Layer[] };
  route?: { path: string | string[]; methods: Record<string, boolean> };
  match(path: string): boolean;
};

/** Dotted paths of the properties under `schema` (inline only; `$ref`s are checked where they are defined) without a description. */
function undescribedProperties(schema: any, where: string): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const own = Object.entries<any>(schema.properties ?? {}).flatMap(([name, p]) => [
    ...(p.description ? [] : [`${where}.${name}`]),
    ...undescribedProperties(p, `${where}.${name}`),
  ]);
  const nested = [schema.items, schema.additionalProperties, ...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])].flatMap((s) =>
    undescribedProperties(s, where),
  );
  return [...own, ...nested];
}

/** `METHOD /path` of every route in a router stack, nested routers included (all mounted at '/'). */
function routesOf(stack: Layer[]): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      return paths.flatMap((p) =>
        Object.keys(layer.route!.methods)
          .filter((m) => m !== '_all')
          .map((m) => `${m.toUpperCase()} ${p}`),
      );
    }
    return layer.handle.stack ? routesOf(layer.handle.stack) : [];
  });
}

let app: TestApp;
let doc: any;
const ajv = new AjvJsonSchemaValidator();
/** Validates against a schema of the document, its `$ref`s to components resolved against the document's. */
const validate = (schema: object, data: unknown) => ajv.getValidator({ ...schema, components: doc.components } as never)(data);

beforeAll(async () => {
  app = await startTestApp();
  const res = await fetch(`${app.url}/api/v1/openapi.json`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = await res.json();
});
afterAll(async () => {
  await app?.close();
});

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op })),
  );

describe('GET /api/v1/openapi.json', () => {
  it('is public and has the shape of an OpenAPI 3.1 document', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(doc.servers).toEqual([{ url: '/api/v1' }]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const ids = new Set<string>();
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      expect(['get', 'post', 'put', 'patch', 'delete'], where).toContain(method);
      expect(op.summary, where).toBeTruthy();
      expect(ids.has(op.operationId), `duplicate operationId ${op.operationId}`).toBe(false);
      ids.add(op.operationId);
      expect(Object.keys(op.responses).length, where).toBeGreaterThan(0);
      expect(
        // 2xx, or 303 for the browser navigations of single sign-on (/auth/oidc/start, /auth/oidc/callback)
        Object.keys(op.responses).some((s) => /^(2|303)/.test(s)),
        where,
      ).toBe(true);
      for (const status of Object.keys(op.responses)) expect(op.responses[status].description, `${where} ${status}`).toBeTruthy();
      // Every {param} of the path is declared as a required path parameter.
      const declared = op.parameters
        .filter((p: any) => p.in === 'path')
        .map((p: any) => p.name)
        .sort();
      expect(declared, where).toEqual([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort());
      for (const p of op.parameters) expect(p.schema, `${where} ${p.name}`).toBeTypeOf('object');
      // A key-callable operation names its permission (only "who am I" needs none beyond authentication).
      if (op.security.some((s: any) => s.bearer) && op.operationId !== 'getMe') {
        expect(op['x-permission'], where).toMatch(/^[a-z]+:[a-z]+$/);
      }
    }
  });

  it('one operationId style: camelCase, verb first, unique', () => {
    const ids = operations().map(({ op }) => op.operationId);
    for (const id of ids)
      expect(id).toMatch(
        /^(get|list|create|update|delete|sense|rename|rescore|revise|set|reassign|resolve|drop|reopen|revive|discard|deactivate|reset|change|provision|revoke|rotate|reactivate|send|retry|replay|stream|login|logout|start|confirm|disable|export|count)[A-Z]?[A-Za-z]*$/,
      );
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['listTensions', 'renameTension', 'discardTension', 'getOpenApiDocument', 'listMyApiKeys', 'setUserRoles']));
  });

  it('describes every operation, parameter and schema property', () => {
    const undescribed: string[] = [];
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      if (!op.description || op.description === op.summary) undescribed.push(`${where}: operation`);
      for (const p of op.parameters) if (!p.description) undescribed.push(`${where}: parameter ${p.name}`);
      if (op.requestBody) undescribed.push(...undescribedProperties(op.requestBody.content['application/json'].schema, `${where} body`));
      for (const [status, r] of Object.entries<any>(op.responses)) {
        for (const c of Object.values<any>(r.content ?? {})) undescribed.push(...undescribedProperties(c.schema, `${where} ${status}`));
        for (const [name, h] of Object.entries<any>(r.headers ?? {})) if (!h.$ref && !h.description) undescribed.push(`${where} ${status} header ${name}`);
      }
    }
    for (const [name, schema] of Object.entries<any>(doc.components.schemas)) undescribed.push(...undescribedProperties(schema, name));
    for (const [name, h] of Object.entries<any>(doc.components.headers)) if (!h.description) undescribed.push(`header ${name}`);
    for (const [name, scheme] of Object.entries<any>(doc.components.securitySchemes)) if (!scheme.description) undescribed.push(`security ${name}`);
    expect(undescribed).toEqual([]);
  });

  it('security per operation: public, session only (self-service and logout), or a key or a session', () => {
    const PUBLIC = [
      'post /auth/login',
      'post /auth/login/mfa',
      'get /auth/oidc',
      'get /auth/oidc/start',
      'get /auth/oidc/callback',
      'get /openapi.json',
      'get /docs',
      'get /docs/reference',
    ];
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      if (PUBLIC.includes(where)) expect(op.security, where).toEqual([]);
      else if (path.startsWith('/me/') || where === 'post /auth/logout') expect(op.security, where).toEqual([{ session: [] }]);
      else expect(op.security, where).toEqual([{ bearer: [] }, { session: [] }]);
      // a cookie-authenticated unsafe request without the CSRF header is refused
      if (method !== 'get' && op.security.some((s: any) => s.session)) expect(op.responses['403']?.description, where).toContain('csrf_required');
    }
    expect(doc.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'session' });
    expect(doc.components.securitySchemes.session.description).toContain('X-CSRF-Protection: 1');
  });

  it('the documented security is what the routes do: anonymous is 401 unless public, a key on a session-only route is 403', async () => {
    const admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    const id = '00000000-0000-4000-8000-000000000000';
    for (const { path, method, op } of operations()) {
      // a stream; login (both steps) and single sign-on's navigations (test/int/identity/oidc-sso.int.test.ts) answer anonymous callers by design
      if (path === '/events/stream' || path.startsWith('/auth/login') || path.startsWith('/auth/oidc/')) continue;
      const url = `/api/v1${path.replace(/\{\w+\}/g, id)}`;
      const anonymous = await fetch(`${app.url}${url}`, { method: method.toUpperCase() });
      expect([anonymous.status, `${method} ${path}`]).toEqual([op.security.length ? 401 : 200, `${method} ${path}`]);
      if (op.security.length && !op.security.some((s: any) => s.bearer)) {
        const byKey = await fetch(`${app.url}${url}`, { method: method.toUpperCase(), headers: { authorization: `Bearer ${admin.key}` } });
        expect([(await byKey.json()).code, `${method} ${path}`]).toEqual(['session_required', `${method} ${path}`]);
      }
    }
  });

  it('413/415 on operations with a body, 429 and 503 with Retry-After and X-Request-Id on all, Idempotency-Key on every POST but login and logout', () => {
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      const statuses = Object.keys(op.responses);
      if (op.requestBody) expect(statuses, where).toEqual(expect.arrayContaining(['413', '415']));
      else
        expect(
          statuses.filter((s) => s === '413' || s === '415'),
          where,
        ).toEqual([]);
      expect(op.responses['429']?.headers?.['Retry-After'], where).toEqual({ $ref: '#/components/headers/Retry-After' });
      expect(op.responses['503']?.headers?.['Retry-After'], where).toEqual({ $ref: '#/components/headers/Retry-After' });
      for (const status of statuses)
        expect(op.responses[status].headers?.['X-Request-Id'], `${where} ${status}`).toEqual({ $ref: '#/components/headers/X-Request-Id' });
      const idempotencyKey = op.parameters.find((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
      const success = op.responses[statuses.find((s) => /^(2|303)/.test(s))!];
      if (method === 'post' && op.security.length && op.operationId !== 'logout') {
        expect(idempotencyKey, where).toMatchObject({ required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } });
        expect(success.headers['Idempotent-Replayed'], where).toEqual({ $ref: '#/components/headers/Idempotent-Replayed' });
        expect(op.responses['409'].description, where).toContain('idempotency_in_progress');
        expect(op.responses['422'].description, where).toContain('idempotency_key_reused');
      } else {
        expect(idempotencyKey, where).toBeUndefined();
        expect(success.headers['Idempotent-Replayed'], where).toBeUndefined();
      }
    }
    for (const name of ['X-Request-Id', 'Retry-After', 'Idempotent-Replayed']) expect(doc.components.headers[name].schema, name).toBeTypeOf('object');
  });

  it('a POST retried with the same Idempotency-Key is replayed as documented, with Idempotent-Replayed: true', async () => {
    const admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    const rest = client(app, admin.key, { 'idempotency-key': `openapi-${admin.keyId}` });
    const first = await rest.post('/actors', { name: 'Org once', type: 'organization' });
    const again = await rest.post('/actors', { name: 'Org once', type: 'organization' });
    expect([first.status, first.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.id]).toEqual([201, 'true', first.body.id]);
    const doc201 = doc.paths['/actors'].post.responses['201'];
    expect(doc201.headers['Idempotent-Replayed']).toBeDefined();
    expect(validate(doc201.content['application/json'].schema, again.body)).toMatchObject({ valid: true });
  });

  it('X-Request-Id is on every answer, as documented, and echoes a valid one sent', async () => {
    const anonymous = await fetch(`${app.url}/api/v1/tensions`);
    expect(anonymous.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const mine = await fetch(`${app.url}/api/v1/openapi.json`, { headers: { 'x-request-id': 'trace-42' } });
    expect(mine.headers.get('x-request-id')).toBe('trace-42');
  });

  it('names the shapes a client uses, and the problem document carries every extension', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining([
        'Tension',
        'Actor',
        'User',
        'Role',
        'ApiKey',
        'CreatedApiKey',
        'HistoryEntry',
        'CommandResult',
        'SenseResult',
        'Event',
        'Problem',
        'TensionPage',
        'HistoryPage',
        'ActorPage',
        'UserPage',
        'RolePage',
        'ApiKeyPage',
        'EventPage',
      ]),
    );
    expect(doc.paths['/tensions'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/TensionPage' });
    expect(doc.paths['/tensions/{id}/rename'].post.responses['409'].content['application/problem+json'].schema).toEqual({
      $ref: '#/components/schemas/Problem',
    });
    const problem = doc.components.schemas.Problem;
    expect(Object.keys(problem.properties)).toEqual(
      expect.arrayContaining([
        'type',
        'title',
        'status',
        'code',
        'detail',
        'requestId',
        'errors',
        'currentVersion',
        'expectedVersion',
        'missingPermission',
        'missingPermissions',
        'state',
        'command',
        'retryAfterSeconds',
      ]),
    );
    const item = problem.properties.errors.items.$ref ? doc.components.schemas.FieldError : problem.properties.errors.items;
    expect(Object.keys(item.properties)).toEqual(['path', 'message', 'code', 'params']);
  });

  it('documents every route registered under /api/v1, and only those', () => {
    const express = buildApp(app.deps) as unknown as { router: { stack: Layer[] } };
    const mounts = express.router.stack.filter((l) => l.handle.stack && l.match('/api/v1/x') && !l.match('/x'));
    expect(mounts).toHaveLength(1);
    const registered = [
      ...new Set(
        routesOf(mounts[0].handle.stack!).map((r) => {
          const [method, path] = r.split(' ');
          return `${method} ${openApiPath(path)}`;
        }),
      ),
    ].sort();
    const documented = operations()
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
      .sort();
    expect(registered.length).toBeGreaterThan(30);
    expect(documented).toEqual(registered);
  });
});

describe('the document agrees with the routes', () => {
  const bodySchema = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema;
  const okSchema = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema;

  it('a tension body the document calls valid is accepted, and the answer matches the documented response', async () => {
    const admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    const rest = client(app, admin.key);
    const actor = await rest.post('/actors', { name: 'Org A', type: 'organization' });
    expect(validate(bodySchema('/actors', 'post'), { name: 'Org A', type: 'organization' }).valid).toBe(true);
    expect(actor.status).toBe(201);
    expect(validate(okSchema('/actors', 'post', '201'), actor.body)).toMatchObject({ valid: true });

    const body = { name: 'Slow settlement', actorId: actor.body.id, currentContext: 'T+3', potentialFuture: null, score: 7 };
    expect(validate(bodySchema('/tensions', 'post'), body)).toMatchObject({ valid: true });
    const sensed = await rest.post('/tensions', body);
    expect(sensed.status).toBe(201);
    expect(validate(okSchema('/tensions', 'post', '201'), sensed.body)).toMatchObject({ valid: true });

    // And what the document calls invalid, the route refuses.
    const bad = { ...body, score: '8' };
    expect(validate(bodySchema('/tensions', 'post'), bad).valid).toBe(false);
    expect((await rest.post('/tensions', bad)).body).toMatchObject({ status: 400, code: 'validation_failed' });
    const stranger = { ...body, colour: 'blue' };
    expect(validate(bodySchema('/tensions', 'post'), stranger).valid).toBe(false);
    expect((await rest.post('/tensions', stranger)).status).toBe(400);
  });

  it('identity bodies: creating a role, an agent and its key as documented', async () => {
    const admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    const rest = client(app, admin.key);
    const roleBody = { code: 'tension-bot', name: 'Tension bot', permissions: ['tensions:read', 'tensions:write'] };
    expect(validate(bodySchema('/roles', 'post'), roleBody)).toMatchObject({ valid: true });
    const role = await rest.post('/roles', roleBody);
    expect(role.status).toBe(201);
    expect(validate(okSchema('/roles', 'post', '201'), role.body)).toMatchObject({ valid: true });

    const userBody = { type: 'agent', email: 'bot@example.com', name: 'Bot', roleIds: [role.body.id] };
    expect(validate(bodySchema('/users', 'post'), userBody)).toMatchObject({ valid: true });
    const user = await rest.post('/users', userBody);
    expect(user.status).toBe(201);
    expect(validate(okSchema('/users', 'post', '201'), user.body)).toMatchObject({ valid: true });

    const keyBody = { name: 'ci', expiresAt: new Date(Date.now() + 86_400_000).toISOString() };
    expect(validate(bodySchema('/users/{id}/api-keys', 'post'), keyBody)).toMatchObject({ valid: true });
    const key = await rest.post(`/users/${user.body.id}/api-keys`, keyBody);
    expect(key.status).toBe(201);
    expect(validate(okSchema('/users/{id}/api-keys', 'post', '201'), key.body)).toMatchObject({ valid: true });

    const me = await client(app, key.body.key).get('/auth/me');
    expect(me.status).toBe(200);
    expect(validate(okSchema('/auth/me', 'get', '200'), me.body)).toMatchObject({ valid: true });
  });
});

describe('GET /api/v1/docs', () => {
  it('is Swagger UI on this document: scripts only from files of this origin, under the strict CSP', async () => {
    const res = await fetch(`${app.url}/api/v1/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
    const html = await res.text();
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => /src="([^"]+)"/.exec(m[1])?.[1])).toEqual(['/api/v1/docs/assets/swagger-ui-bundle.js', '/api/v1/docs/assets/init.js']);
    expect(scripts.every((m) => m[2].trim() === '')).toBe(true);
    expect(html).not.toMatch(/(src|href)="https?:/i);
    expect(html).toContain('href="/api/v1/docs/reference"');

    const init = await fetch(`${app.url}/api/v1/docs/assets/init.js`);
    expect(init.headers.get('content-type')).toMatch(/^text\/javascript/);
    const code = await init.text();
    expect(code).toContain('"/api/v1/openapi.json"');
    expect(code).toContain('validatorUrl: null');
    for (const [file, type] of [
      ['swagger-ui-bundle.js', /^text\/javascript/],
      ['swagger-ui.css', /^text\/css/],
      ['favicon-32x32.png', /^image\/png/],
    ] as const) {
      const asset = await fetch(`${app.url}/api/v1/docs/assets/${file}`);
      expect([file, asset.status]).toEqual([file, 200]);
      expect(asset.headers.get('content-type')).toMatch(type);
      expect(asset.headers.get('content-security-policy')).toBe(csp);
    }
    // only the files the page uses: not the package's own index (the Petstore demo) or its source maps
    for (const file of ['index.html', 'swagger-initializer.js', 'swagger-ui-bundle.js.map', '..%2Fpackage.json', 'package.json']) {
      expect([file, (await fetch(`${app.url}/api/v1/docs/assets/${file}`)).status]).toEqual([file, 404]);
    }
  });
});

describe('GET /api/v1/docs/reference', () => {
  it('is a public, self-contained HTML page listing each operation with its access rule and schemas', async () => {
    const res = await fetch(`${app.url}/api/v1/docs/reference`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>/);
    // No scripts and nothing fetched from elsewhere.
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(src|href)="https?:/i);
    for (const { path, method, op } of operations()) {
      const section = html.slice(html.indexOf(`<section id="${op.operationId}">`));
      expect(section.length, op.operationId).toBeLessThan(html.length);
      const own = section.slice(0, section.indexOf('</section>'));
      expect(own).toContain(`>${method.toUpperCase()}</span> <code>/api/v1${path}</code>`);
      if (op['x-permission']) expect(own).toContain(`permission <code>${op['x-permission']}</code>`);
      if (op.requestBody) expect(own).toContain('<h4>Body (application/json)</h4>');
      for (const p of op.parameters) expect(own).toContain(`<code>${p.name}</code>`);
      for (const status of Object.keys(op.responses)) expect(own).toContain(`<b>${status}</b>`);
    }
    expect(html).toContain('score?: integer (1–10)');
    // operations name their shapes; each named schema has its own section, with its descriptions
    for (const name of Object.keys(doc.components.schemas)) expect(html, name).toContain(`<section id="schema-${name}">`);
    const tension = html.slice(html.indexOf('<section id="schema-Tension">'));
    expect(tension.slice(0, tension.indexOf('</section>'))).toContain('version: integer  // Its version');
  });
});

describe('the document states what is served (issue 30)', () => {
  const param = (path: string, method: string, name: string) => doc.paths[path][method].parameters.find((p: any) => p.name === name);

  it('CreatedApiKey: `key` is optional, said to be absent on a replay, and a replayed creation validates', async () => {
    const created = doc.components.schemas.CreatedApiKey;
    expect(created.required).not.toContain('key');
    expect(created.properties.key.description).toMatch(/Absent on an idempotent replay/);
    const admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    const agent = await client(app, admin.key).post('/users', { type: 'agent', email: 'replayed-key@test.example', name: 'Replayed' });
    const rest = client(app, admin.key, { 'idempotency-key': `replayed-key-${admin.keyId}` });
    const first = await rest.post(`/users/${agent.body.id}/api-keys`, { name: 'once' });
    const again = await rest.post(`/users/${agent.body.id}/api-keys`, { name: 'once' });
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
    expect(first.body.key).toMatch(/^mk_/);
    expect(again.body).not.toHaveProperty('key');
    const schema = doc.paths['/users/{id}/api-keys'].post.responses['201'].content['application/json'].schema;
    expect(validate(schema, first.body)).toMatchObject({ valid: true });
    expect(validate(schema, again.body)).toMatchObject({ valid: true });
  });

  it('a limit given as text: the documented pattern accepts exactly what the route serves', async () => {
    const admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    const schema = param('/tensions', 'get', 'limit').schema;
    const text = schema.anyOf.find((s: any) => s.type === 'string');
    expect(text.pattern).not.toBe('^\\d+$');
    for (const value of ['0', '1', '01', '9', '10', '99', '100', '0100', '0000000100', '101', '200', '999', '1000', '9999999999', '00', '-1', '1e2', ' 5']) {
      const served = (await fetch(`${app.url}/api/v1/tensions?limit=${encodeURIComponent(value)}`, { headers: { authorization: `Bearer ${admin.key}` } }))
        .status;
      expect([value, validate(schema, value).valid], `served ${served}`).toEqual([value, served === 200]);
    }
  });

  it('expectedVersion on DELETE is an integer, never null (a query string cannot say null), and its bounds are served', async () => {
    const schema = param('/tensions/{id}', 'delete', 'expectedVersion').schema;
    expect(schema).toEqual({ type: 'integer', minimum: 0, maximum: 2147483647 });
    expect(JSON.stringify(operations().flatMap(({ op }) => op.parameters.filter((p: any) => p.in === 'query')))).not.toContain('"null"');
    const admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    const rest = client(app, admin.key);
    const actor = await rest.post('/actors', { name: 'Deletable org', type: 'organization' });
    const tension = (await rest.post('/tensions', { name: 'To discard', actorId: actor.body.id })).body.tension;
    expect((await rest.del(`/tensions/${tension.id}?expectedVersion=2147483647`)).body).toMatchObject({
      code: 'version_conflict',
      expectedVersion: 2147483647,
    });
    expect((await rest.del(`/tensions/${tension.id}?expectedVersion=2147483648`)).body).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'expectedVersion', code: 'too_big' }],
    });
    expect((await rest.del(`/tensions/${tension.id}?expectedVersion=${tension.version}`)).status).toBe(204);
  });

  it('email inputs have format email; permissions and event types are enums of exactly what the routes accept', async () => {
    expect(doc.paths['/users'].post.requestBody.content['application/json'].schema.properties.email).toMatchObject({ type: 'string', format: 'email' });
    expect(doc.paths['/users/{id}'].patch.requestBody.content['application/json'].schema.properties.email).toMatchObject({ format: 'email' });
    const admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    const rest = client(app, admin.key);
    const grants: string[] = doc.paths['/roles'].post.requestBody.content['application/json'].schema.properties.permissions.items.enum;
    const keyScopes: string[] = doc.paths['/users/{id}/api-keys'].post.requestBody.content['application/json'].schema.properties.permissions.anyOf.find(
      (s: any) => s.type === 'array',
    ).items.enum;
    expect(keyScopes).toEqual(grants);
    const catalogue: string[] = (await rest.get('/permissions')).body.data;
    expect(grants).toEqual(expect.arrayContaining([...catalogue, '*', 'tensions:*']));
    const everything = await rest.post('/roles', { code: 'every-grant', name: 'Every grant', permissions: grants });
    expect(everything.status, JSON.stringify(everything.body)).toBe(201);
    expect((await rest.post('/roles', { code: 'odd-grant', name: 'Odd', permissions: ['tensions:fly'] })).status).toBe(400);

    const types: string[] = param('/events', 'get', 'types').schema.items.enum;
    expect(types.length).toBeGreaterThan(10);
    expect((await rest.get(`/events?types=${types.join(',')}`)).status).toBe(200);
    expect((await rest.get('/events?types=TensionExploded')).status).toBe(400);
  });

  it('says that NUL characters are refused, and the route refuses them as documented', async () => {
    expect(doc.info.description).toMatch(/NUL character \(U\+0000\)/);
    expect(doc.components.schemas.FieldError.properties.code.description).toMatch(/NUL/);
    const admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    const res = await client(app, admin.key).post('/actors', { name: 'a\u0000b', type: 'organization' });
    expect(res.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'name', code: 'invalid_format', params: { format: 'text' } }] });
  });

  it('RateLimit and RateLimit-Policy: documented on every keyed answer, and sent as documented', async () => {
    for (const name of ['RateLimit', 'RateLimit-Policy']) expect(doc.components.headers[name].description, name).toMatch(/IETF|quota/);
    for (const { path, method, op } of operations()) {
      const keyedOp = op.security.some((s: any) => s.bearer);
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const expected = keyedOp && status !== '401' ? { $ref: '#/components/headers/RateLimit' } : undefined;
        expect(response.headers?.RateLimit, `${method} ${path} ${status}`).toEqual(expected);
      }
    }
    expect(doc.components.schemas.Problem.properties.retryAfterSeconds.description).toMatch(/per-key/);
    const admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    const res = await fetch(`${app.url}/api/v1/tensions`, { headers: { authorization: `Bearer ${admin.key}` } });
    for (const name of ['RateLimit', 'RateLimit-Policy']) {
      expect(new RegExp(doc.components.headers[name].schema.pattern).test(res.headers.get(name) ?? ''), `${name}: ${res.headers.get(name)}`).toBe(true);
    }
  });
});
