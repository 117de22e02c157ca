// Public: the OpenAPI 3.1 document of the REST facade, Swagger UI on it, and a static HTML rendering of it (no scripts, no CDN).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';
import type { Deps } from '../application/context.js';
import { buildOpenApi, type RouteDoc } from './openapi.js';
import { TENSION_ROUTE_DOCS } from './tensions.docs.js';
import { IDENTITY_ROUTE_DOCS } from './identity.docs.js';
import { SECOND_FACTOR_ROUTE_DOCS } from './second-factor.docs.js';
import { EVENTS_ROUTE_DOCS } from './events.docs.js';
import { EXPORT_ROUTE_DOCS } from './export.docs.js';
import { operationDocs } from './operations.docs.js';
import { renderDocsPage } from './openapi.html.js';
import { docsPageRoutes } from './docs-page.js';

export const OPENAPI_ROUTE_DOCS: RouteDoc[] = [
  {
    method: 'get',
    path: '/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    tag: 'docs',
    auth: 'public',
    status: 200,
    operationId: 'getOpenApiDocument',
    description: 'The OpenAPI 3.1 document of this API, to generate a client from (e.g. `npx openapi-typescript http://host/api/v1/openapi.json -o api.d.ts`).',
  },
  {
    method: 'get',
    path: '/docs',
    summary: 'The interactive API reference',
    tag: 'docs',
    auth: 'public',
    status: 200,
    operationId: 'getApiExplorer',
    description:
      'This document in Swagger UI: read every operation and try it with your API key ("Authorize") or your admin session. Served offline, with no third-party requests.',
  },
  {
    method: 'get',
    path: '/docs/reference',
    summary: 'The API reference as one static page',
    tag: 'docs',
    auth: 'public',
    status: 200,
    operationId: 'getApiReference',
    description: 'This document as one HTML page without scripts, for reading, printing and searching.',
  },
];

export const REST_ROUTE_DOCS: RouteDoc[] = [
  ...IDENTITY_ROUTE_DOCS,
  ...SECOND_FACTOR_ROUTE_DOCS,
  ...TENSION_ROUTE_DOCS,
  ...operationDocs(['actors', 'events']),
  ...EVENTS_ROUTE_DOCS,
  ...operationDocs(['audit']),
  ...operationDocs(['webhooks']),
  ...OPENAPI_ROUTE_DOCS,
  ...EXPORT_ROUTE_DOCS,
];

/** The package version, wherever this module runs from (sources under tsx, or dist/). */
function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0';
    dir = resolve(dir, '..');
  }
  return '0.0.0';
}

export type OpenApiDocument = ReturnType<typeof buildOpenApi>;

let cached: { json: string; html: string } | undefined;

export function restOpenApi(): OpenApiDocument {
  return buildOpenApi(REST_ROUTE_DOCS, { version: packageVersion() });
}

export function openapiRoutes(_deps: Deps): Router {
  const router = Router();
  // Built on first use: the document only changes with the code.
  const rendered = () => {
    if (!cached) {
      const doc = restOpenApi();
      cached = { json: JSON.stringify(doc), html: renderDocsPage(doc) };
    }
    return cached;
  };
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(rendered().json);
  });
  router.get('/docs/reference', (_req, res) => {
    res.type('text/html; charset=utf-8').send(rendered().html);
  });
  router.use(docsPageRoutes());
  return router;
}
