// Builds the OpenAPI 3.1 document of the REST facade from the same zod schemas the routes validate with:
// every route gets the same machinery (operationId, security, the refusals and headers that apply to it).
import type { z } from 'zod';
import type { ErrorCode } from '../domain/errors.js';
import { REFUSAL_STATUS, REFUSAL_TITLE } from '../http/refusal-status.js';
import { OPERATION_PERMISSIONS, type Operation } from '../application/permission-table.js';
import { BODY_LIMIT_BYTES } from '../http/body.js';
import { Components } from './openapi.components.js';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

export interface RouteDoc {
  method: HttpMethod;
  /** Express-style path under /api/v1, e.g. `/tensions/:id/rename` */
  path: string;
  /** a few words; `description` says the rest */
  summary: string;
  /** what it does, for whom, and what to watch out for (Markdown) */
  description: string;
  tag: string;
  /** the permission-table entry; undefined = public */
  operation?: Operation;
  /** `session` = needs a password session (self-service routes) */
  auth?: 'public' | 'any' | 'session';
  body?: z.ZodType;
  /** false when the body may be left out (every field optional); default true */
  bodyRequired?: boolean;
  /** descriptions of the path parameters, by name (default: the id of the tag's thing) */
  pathParams?: Record<string, string>;
  query?: z.ZodObject;
  response?: z.ZodType;
  /** a Server-Sent Events stream instead of a JSON answer (`response` then describes each event's `data:`) */
  eventStream?: boolean;
  /** a download in these media types instead of a JSON answer (an export, issue 36) */
  download?: string[];
  /** the operationId, when `operationIdOf` cannot derive it from `operation` */
  operationId?: string;
  status: number;
  errors?: ErrorCode[];
  /** false: a POST that ignores `Idempotency-Key` (logout) */
  idempotencyKey?: false;
}

export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

const capital = (s: string) => s[0].toUpperCase() + s.slice(1);
/** `tensions` → `Tension`, `me` → `My` */
const noun = (area: string) => (area === 'me' ? 'My' : capital(area.replace(/s$/, '')));

/**
 * The one operationId style: camelCase verb first. From the permission-table operation `area.verb`:
 * `list` takes the plural (`listTensions`), a bare verb the singular (`renameTension`), and a verb that
 * names its object gets the area's noun in between (`users.setRoles` → `setUserRoles`, `me.createApiKey`
 * → `createMyApiKey`).
 */
export function operationIdOf(r: Pick<RouteDoc, 'operation' | 'operationId' | 'method' | 'path'>): string {
  if (r.operationId) return r.operationId;
  if (!r.operation) throw new Error(`OpenAPI: ${r.method} ${r.path} needs an operationId`);
  const [area, verb] = r.operation.split('.');
  if (verb === 'list') return `list${capital(area)}`;
  const split = /^([a-z]+)([A-Z].*)?$/.exec(verb)!;
  return `${split[1]}${noun(area)}${split[2] ?? ''}`;
}

const AREA_THING: Record<string, string> = {
  tensions: 'tension',
  actors: 'actor',
  users: 'user',
  'api-keys': 'user',
  roles: 'role',
  webhooks: 'webhook endpoint',
};

function pathParamDescription(r: RouteDoc, name: string): string {
  if (r.pathParams?.[name]) return r.pathParams[name];
  if (name === 'keyId') return 'The API key id (a UUID).';
  return `The ${AREA_THING[r.tag] ?? r.tag} id (a UUID); an id that is not a UUID is 404 not_found.`;
}

const header = (description: string, schema: Record<string, unknown>) => ({ description, schema });
const HEADERS = {
  'X-Request-Id': header(
    'The request id: yours when you sent a valid `X-Request-Id` (1-128 of `A-Za-z0-9_.:-`), else a new UUID. Also in every problem document.',
    { type: 'string' },
  ),
  'Retry-After': header('Seconds to wait before trying again.', { type: 'integer', minimum: 1 }),
  'WWW-Authenticate': header('`Bearer`: send an API key.', { type: 'string' }),
  RateLimit: header(
    'The request quota left to the API key in the current window (IETF draft-ietf-httpapi-ratelimit-headers): `"default";r=<requests left>;t=<seconds until the window resets>`. Sent on every answer to a request with a valid API key; not for sessions or anonymous callers.',
    { type: 'string', pattern: '^"default";r=\\d+;t=\\d+$' },
  ),
  'RateLimit-Policy': header(
    'The API key\'s quota: `"default";q=<requests>;w=60`, i.e. `RATE_LIMIT_PER_MINUTE` requests per 60-second window on this instance. Sent with `RateLimit`.',
    { type: 'string', pattern: '^"default";q=\\d+;w=60$' },
  ),
  'Idempotent-Replayed': header('`true` when this is the kept answer of an earlier request with the same `Idempotency-Key` (nothing was written this time).', {
    type: 'string',
    enum: ['true'],
  }),
};
const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });
/** The quota fields a keyed request's answer carries (server/http/rate-limit.ts). */
const RATE_LIMIT_HEADERS = { RateLimit: headerRef('RateLimit'), 'RateLimit-Policy': headerRef('RateLimit-Policy') };
/** Whether an API key may call the operation (its answers then carry the quota fields). */
const keyed = (r: RouteDoc) => (r.auth ?? 'any') === 'any';

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry (SPEC §12): the first answer (status and body) is kept for 24 hours, scoped to the caller, and a retry with ' +
    'the same key, method, path and body gets it back with `Idempotent-Replayed: true` and writes nothing. The same key with a different ' +
    'request is 422 idempotency_key_reused; a retry while the first is still running is 409 idempotency_in_progress. A replayed key ' +
    'creation answers the metadata without `key`.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
};

/** Every POST but the public one (login) takes an Idempotency-Key (SPEC §12). */
const idempotent = (r: RouteDoc) => r.method === 'post' && r.auth !== 'public' && r.idempotencyKey !== false;

/** The refusals an operation can answer: its own, and those every route of its kind shares. */
function errorCodesOf(r: RouteDoc, permission: string | null): Set<ErrorCode> {
  const codes = new Set<ErrorCode>(r.errors ?? []);
  if (r.auth !== 'public') codes.add('unauthenticated');
  if (permission) codes.add('forbidden');
  if (r.auth === 'session') codes.add('session_required');
  // a session caller's unsafe request without the CSRF header
  if (r.auth !== 'public' && r.method !== 'get') codes.add('csrf_required');
  if (r.body || r.query) codes.add('validation_failed');
  if (r.body) for (const c of ['invalid_json', 'payload_too_large', 'unsupported_media_type'] as const) codes.add(c);
  if (r.path.includes(':')) codes.add('not_found');
  if (idempotent(r)) for (const c of ['validation_failed', 'idempotency_in_progress', 'idempotency_key_reused'] as const) codes.add(c);
  codes.add('rate_limited');
  // the database cannot serve for now, or no connection within DB_ACQUIRE_TIMEOUT_MS (SPEC §7)
  codes.add('unavailable');
  return codes;
}

const SUCCESS: Record<number, string> = { 200: 'OK', 201: 'Created', 204: 'Done; no content', 303: 'See Other: the browser goes on to `Location`' };

function successResponse(r: RouteDoc, components: Components) {
  const headers = {
    'X-Request-Id': headerRef('X-Request-Id'),
    ...(keyed(r) ? RATE_LIMIT_HEADERS : {}),
    ...(idempotent(r) ? { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') } : {}),
  };
  if (r.eventStream) {
    return {
      description:
        'A stream of Server-Sent Events: `id:` the cursor after the event, `event:` its type, `data:` the event as JSON (`x-event-data`); a comment line every 15 s.',
      headers,
      content: { 'text/event-stream': { schema: { type: 'string', ...(r.response ? { 'x-event-data': components.schemaOf(r.response, 'output') } : {}) } } },
    };
  }
  if (r.download) {
    return { description: 'The whole list, streamed', headers, content: Object.fromEntries(r.download.map((t) => [t, { schema: { type: 'string' } }])) };
  }
  if (r.status === 204 || !r.response) return { description: SUCCESS[r.status] ?? 'OK', headers };
  return { description: SUCCESS[r.status] ?? 'OK', headers, content: { 'application/json': { schema: components.schemaOf(r.response, 'output') } } };
}

function errorResponses(codes: Set<ErrorCode>, problem: unknown, withQuota: boolean) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(REFUSAL_STATUS[code], [...(byStatus.get(REFUSAL_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [
        String(status),
        {
          description: list.map((c) => `${REFUSAL_TITLE[c]} (\`${c}\`)`).join('; '),
          headers: {
            'X-Request-Id': headerRef('X-Request-Id'),
            // a 401 is an anonymous caller's: no key, so no quota of its own
            ...(withQuota && status !== 401 ? RATE_LIMIT_HEADERS : {}),
            ...(status === 429 || status === 503 ? { 'Retry-After': headerRef('Retry-After') } : {}),
            ...(status === 401 ? { 'WWW-Authenticate': headerRef('WWW-Authenticate') } : {}),
          },
          content: { 'application/problem+json': { schema: problem } },
        },
      ]),
  );
}

/** A query string cannot say null: a parameter's schema drops the `null` a nullish input admits. */
function withoutNull(json: Record<string, unknown>): Record<string, unknown> {
  const anyOf = json.anyOf as Record<string, unknown>[] | undefined;
  if (!anyOf?.some((s) => s.type === 'null')) return json;
  const rest = anyOf.filter((s) => s.type !== 'null');
  const { anyOf: _, ...others } = json;
  return rest.length === 1 ? { ...others, ...rest[0] } : { ...others, anyOf: rest };
}

const SECURITY = { public: [], session: [{ session: [] }], any: [{ bearer: [] }, { session: [] }] };

function operationOf(r: RouteDoc, components: Components) {
  const permission = r.operation ? OPERATION_PERMISSIONS[r.operation] : null;
  const pathParams = [...r.path.matchAll(/:(\w+)/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    description: pathParamDescription(r, m[1]),
    schema: { type: 'string', format: 'uuid' },
  }));
  const queryParams = Object.entries(r.query?.shape ?? {}).map(([name, s]) => {
    const schema = s as z.ZodType;
    const { description, ...json } = components.schemaOf(schema, 'input');
    return { name, in: 'query', required: !schema.safeParse(undefined).success, description, schema: withoutNull(json) };
  });
  return {
    operationId: operationIdOf(r),
    summary: r.summary,
    description: r.description,
    tags: [r.tag],
    security: SECURITY[r.auth ?? 'any'],
    ...(permission ? { 'x-permission': permission } : {}),
    ...(r.auth === 'session' ? { 'x-requires': 'a password session (cookie); API keys are refused with session_required' } : {}),
    parameters: [...pathParams, ...queryParams, ...(idempotent(r) ? [IDEMPOTENCY_KEY] : [])],
    ...(r.body ? { requestBody: { required: r.bodyRequired ?? true, content: { 'application/json': { schema: components.schemaOf(r.body, 'input') } } } } : {}),
    responses: { [r.status]: successResponse(r, components), ...errorResponses(errorCodesOf(r, permission), components.ref('Problem'), keyed(r)) },
  };
}

export function buildOpenApi(routes: RouteDoc[], info: { version: string }) {
  const components = new Components();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) (paths[openApiPath(r.path)] ??= {})[r.method] = operationOf(r, components);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Market service REST API',
      version: info.version,
      description: [
        'The REST facade of the market service: tensions, the actors who experience them, the event feed, and the users, roles and API keys who act on them.',
        'Authenticate with `Authorization: Bearer <API_KEY>`; the admin app uses the `session` cookie instead.',
        'Errors are RFC 9457 problem documents (`application/problem+json`) with a stable `code` (schema `Problem`).',
        `Bodies are JSON, at most ${BODY_LIMIT_BYTES} bytes. Lists take \`limit\` and \`cursor\` and answer \`{data, nextCursor}\`.`,
        'Every request counts against a per-key (or, anonymous, per-client) rate limit: over it, 429 rate_limited with `Retry-After` and `retryAfterSeconds`. ' +
          'Every answer to a request with an API key carries the IETF `RateLimit-Policy` (`"default";q=<requests>;w=60`) and `RateLimit` (`"default";r=<left>;t=<seconds to reset>`) fields.',
        'Text is Unicode: a string holding a NUL character (U+0000) or an unpaired UTF-16 surrogate, anywhere in a body or a query string, is refused (400 validation_failed, field code `invalid_format` with `format: "text"`): PostgreSQL cannot store it.',
      ].join('\n\n'),
    },
    servers: [{ url: '/api/v1' }],
    security: SECURITY.any,
    tags: TAGS,
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key: `mk_` followed by 49 base62 characters. Provisioned for an agent user (`POST /users/{id}/api-keys`) or created by a human for themselves (`POST /me/api-keys`).',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'session',
          description:
            'The session cookie `POST /auth/login` sets (humans only). A request with it and an unsafe method (POST, PUT, PATCH, DELETE) must also send the header `X-CSRF-Protection: 1`, else 403 csrf_required; bearer requests are exempt.',
        },
      },
      headers: HEADERS,
      schemas: components.ordered(),
    },
  };
}

const TAGS = [
  { name: 'tensions', description: 'Tensions and their commands (SPEC §3): each command answers the tension and the event it made.' },
  { name: 'actors', description: 'The organizations, individuals, virtual actors and agents who experience tensions.' },
  { name: 'events', description: 'The event feed (SPEC §10): every committed event in order, paged or streamed.' },
  { name: 'auth', description: 'Signing in and out, and who am I.' },
  { name: 'me', description: 'Self-service for a human signed in with a password.' },
  { name: 'users', description: 'User administration: humans who sign in, agents who call with keys.' },
  { name: 'api-keys', description: "Agent users' API keys." },
  { name: 'roles', description: 'Hierarchical roles and the permission catalogue.' },
  { name: 'audit', description: 'The audit trail of identity and administration actions (SPEC §11).' },
  { name: 'webhooks', description: 'Every event pushed to systems that take HTTP calls, signed as Standard Webhooks says (SPEC §14).' },
  { name: 'docs', description: 'This document and its pages.' },
];
