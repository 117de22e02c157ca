// Builds the OpenAPI 3.1 document of the REST facade from the same zod schemas the routes validate with.
import { z } from 'zod';
import { REFUSAL_CODES, type ErrorCode } from '../domain/errors.js';
import { REFUSAL_STATUS, REFUSAL_TITLE } from '../http/refusal-status.js';
import { OPERATION_PERMISSIONS, type Operation } from '../application/permission-table.js';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

export interface RouteDoc {
  method: HttpMethod;
  /** Express-style path under /api/v1, e.g. `/tensions/:id/rename` */
  path: string;
  summary: string;
  tag: string;
  /** the permission-table entry; undefined = public */
  operation?: Operation;
  /** `session` = needs a password session (self-service routes) */
  auth?: 'public' | 'any' | 'session';
  body?: z.ZodType;
  /** false when the body may be left out (every field optional); default true */
  bodyRequired?: boolean;
  /** descriptions of the path parameters, by name */
  pathParams?: Record<string, string>;
  query?: z.ZodObject;
  response?: z.ZodType;
  /** a Server-Sent Events stream instead of a JSON answer (`response` then describes each event's `data:`) */
  eventStream?: boolean;
  /** when two routes share one permission-table operation, the second names its own operationId */
  operationId?: string;
  status: number;
  errors?: ErrorCode[];
}

const problem = {
  type: 'object',
  required: ['type', 'title', 'status', 'code', 'requestId'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string', enum: [...REFUSAL_CODES] },
    detail: { type: 'string' },
    requestId: { type: 'string' },
    errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
  },
  additionalProperties: true,
};

const IDEMPOTENCY_KEY_PARAM = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry: the first answer (status and body) is kept for 24 hours, scoped to the caller, and a retry with ' +
    'the same key, method, path and body gets it back with `Idempotent-Replayed: true` and writes nothing. The same key with a different ' +
    'request is 422 idempotency_key_reused; a retry while the first is still running is 409 idempotency_in_progress. A replayed key ' +
    'creation answers the metadata without `key`.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
};

const IDEMPOTENT_REPLAYED_HEADER = {
  description: '`true` when this is the kept answer of an earlier request with the same Idempotency-Key.',
  schema: { type: 'string', enum: ['true'] },
};

function schemaOf(schema: z.ZodType, io: 'input' | 'output') {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

export function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

export function buildOpenApi(routes: RouteDoc[], info: { version: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const p = openApiPath(r.path);
    const pathParams = [...r.path.matchAll(/:(\w+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      ...(r.pathParams?.[m[1]] ? { description: r.pathParams[m[1]] } : {}),
      schema: { type: 'string', format: 'uuid' },
    }));
    const queryParams = r.query
      ? Object.entries(r.query.shape).map(([name, s]) => ({
          name,
          in: 'query',
          required: !(s as z.ZodType).safeParse(undefined).success,
          ...((s as z.ZodType).description ? { description: (s as z.ZodType).description } : {}),
          schema: schemaOf(s as z.ZodType, 'input'),
        }))
      : [];
    // Every POST but login takes an Idempotency-Key (SPEC §12).
    const idempotent = r.method === 'post' && r.auth !== 'public';
    const headerParams = idempotent ? [IDEMPOTENCY_KEY_PARAM] : [];
    const permission = r.operation ? OPERATION_PERMISSIONS[r.operation] : null;
    const errorCodes = new Set<ErrorCode>(r.errors ?? []);
    if (idempotent) {
      errorCodes.add('validation_failed');
      errorCodes.add('idempotency_in_progress');
      errorCodes.add('idempotency_key_reused');
    }
    if (r.auth !== 'public') errorCodes.add('unauthenticated');
    if (permission) errorCodes.add('forbidden');
    if (r.body || r.query) errorCodes.add('validation_failed');
    if (r.path.includes(':')) errorCodes.add('not_found');
    const responses: Record<string, unknown> = {
      [r.status]: r.eventStream
        ? {
            description: 'A stream of Server-Sent Events: `id:` the cursor after the event, `event:` its type, `data:` the event as JSON (schema below); a comment line every 15 s',
            content: { 'text/event-stream': { schema: { type: 'string', ...(r.response ? { 'x-event-data': schemaOf(r.response, 'output') } : {}) } } },
          }
        : r.status === 204 || !r.response
          ? { description: 'No content' }
          : { description: 'Success', content: { 'application/json': { schema: schemaOf(r.response, 'output') } } },
    };
    if (idempotent) (responses[r.status] as Record<string, unknown>).headers = { 'Idempotent-Replayed': IDEMPOTENT_REPLAYED_HEADER };
    for (const code of errorCodes) {
      const status = String(REFUSAL_STATUS[code]);
      const existing = responses[status] as { description: string } | undefined;
      responses[status] = {
        description: existing ? `${existing.description}; ${code}` : `${REFUSAL_TITLE[code]} (${code})`,
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      };
    }
    (paths[p] ??= {})[r.method] = {
      operationId: r.operationId ?? r.operation ?? `${r.method}${r.path.replace(/[/:{}-]+(\w)/g, (_m, c: string) => c.toUpperCase())}`,
      summary: r.summary,
      tags: [r.tag],
      ...(r.auth === 'public' ? { security: [] } : {}),
      ...(permission ? { 'x-permission': permission } : {}),
      ...(r.auth === 'session' ? { 'x-requires': 'a password session (cookie); API keys are refused with session_required' } : {}),
      parameters: [...pathParams, ...queryParams, ...headerParams],
      ...(r.body
        ? { requestBody: { required: r.bodyRequired ?? true, content: { 'application/json': { schema: schemaOf(r.body, 'input') } } } }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Market service REST API',
      version: info.version,
      description:
        'The REST facade of the market service. Authenticate with `Authorization: Bearer <API_KEY>`. Errors are RFC 9457 problem documents with a stable `code`.',
    },
    servers: [{ url: '/api/v1' }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key: mk_ followed by 49 base62 characters.' },
        session: { type: 'apiKey', in: 'cookie', name: 'session' },
      },
      schemas: { Problem: problem },
    },
    paths,
  };
}
