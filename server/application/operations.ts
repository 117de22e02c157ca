// The operation registry: one entry per operation of an area, declared once, and every face served from
// it by one generic loop each — REST routes (server/rest/operations.routes.ts), their OpenAPI operations
// (server/rest/operations.docs.ts), GraphQL fields (schema/operations.ts), MCP tools
// (server/mcp/operations.tools.ts) and the authorization sweep's surfaces (test/support/operations.ts).
// The permission is the entry's row of the permission table (a leaf this file imports by key).
//
// The tension commands keep their own registry (server/application/tensions/registry.ts): their use case
// is one generic command path over a decider, so an entry there holds the decider command instead of a
// use case; everything else about them (REST, GraphQL, MCP, sweep) is generated the same way.
//
// Adding an identity operation: its use case (and zod input), its row in permission-table.ts, one entry in
// its area's `*.operations.ts`, its audit action with the i18n strings. No route, doc, Pothos or MCP file
// (docs/contributing.md has the recipe, with the files counted).
//
// On the registry: users, me (and keys), roles, actors, the audit trail and the event feed's pages
// (`GET /events`, `events`, `list_events`). Hand-written beside it, because they are not one request and
// one answer: the feed's Server-Sent Events stream (`GET /events/stream`, server/rest/events.routes.ts), the
// GraphQL subscription `tensionEvents` (schema/events/events.queries.ts) and the long poll's waiting itself
// (`listEvents` in application/events: the REST loop only hands it the request's abort signal); login,
// logout and the second sign-in step (public, no permission row); webhooks, connected apps and the second
// factor until their areas move.
import type { z } from 'zod';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorCode, Result } from '../domain/errors.js';
import type { Ctx, Deps } from './context.js';
import type { Operation } from './permission-table.js';
import type { AuditAction } from './audit/audit.js';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** The path parameters of a call, by their REST name (`id`, `keyId`); each a string as the client sent it. */
export type PathParams = Record<string, string>;

export interface RestFace {
  method: HttpMethod;
  /** Express-style, under /api/v1; its `:name`s are the entry's path parameters on every face */
  path: string;
  status: 200 | 201 | 202 | 204;
  /** the OpenAPI tag */
  tag: string;
  summary: string;
  description: string;
  /** where the input comes from: the JSON body, the query string, or nowhere */
  input: 'body' | 'query' | 'none';
  /** false when the body may be left out (every field optional); default: it may when `{}` parses */
  bodyRequired?: boolean;
  /** `session`: a password session only (self-service) */
  auth?: 'session';
  /** descriptions of path parameters, by name, when the default (`The user id …`) does not fit */
  pathParams?: Record<string, string>;
  /** the OpenAPI operationId when the derived one (from `operation`) does not fit */
  operationId?: string;
  /** the REST answer of a success, when it differs from the use case's value (`{ data: [...] }`) */
  answer?: (value: unknown) => unknown;
}

export interface GraphqlFace {
  kind: 'query' | 'mutation';
  field: string;
  /**
   * The answer's GraphQL type by name (`User`, `UserPage`, `Boolean`, `[String]`): schema/operations.ts maps
   * names to the object types. `Boolean`: a write that answers true once it succeeded.
   */
  type: string;
  /** a field that answers null where the use case refuses not_found (`user(id)`) */
  nullable?: boolean;
  description?: string;
  /** GraphQL's name of a path parameter, when not the REST one (`{ id: 'userId' }`) */
  params?: Record<string, string>;
  /**
   * The path parameters of an entry without a REST route (a GraphQL-only field about one object, as
   * `webhookDeliveriesTotal(id)`): ids as a route's are, so an id that is not a UUID is not found alike.
   */
  pathParams?: readonly string[];
  /**
   * `input`: one `input: <inputType>` argument (required when `{}` does not parse); `flat`: each input field
   * its own argument (list filters, `setUserRoles(id, roleIds)`); `none`: no input.
   */
  args: 'input' | 'flat' | 'none';
  /** the input object type's name, for `args: 'input'` */
  inputType?: string;
  /**
   * The arguments as GraphQL states them, when the REST query's form does not fit (a limit REST takes as
   * text or number, the long poll's `wait`); the use case still parses them with the entry's `input`.
   */
  input?: z.ZodObject;
}

/**
 * Whether an agent can call it over MCP, decided per operation and said why: acting on users, roles and
 * keys is an escalation surface (SPEC §6), so those stay off MCP unless an entry argues otherwise.
 */
export type McpFace =
  | { exposed: false; why: string }
  | {
      exposed: true;
      why: string;
      name: string;
      title: string;
      description: string;
      annotations: ToolAnnotations;
      /** descriptions of the path ids, by name, when the default (`The target id (a UUID).`) does not fit */
      params?: Record<string, string>;
      /**
       * The tool's own arguments, when they differ from the entry's `input` (`list_events`: no `wait`, typed
       * limit); the server parses them with it, then the use case with its own.
       */
      input?: z.ZodObject;
    }
  /** served by a hand-written tool that answers less than the other faces (`list_users`: id, name, type, status) */
  | { exposed: 'narrowed'; why: string; name: string };

export interface OperationEntry {
  /** the permission-table row; also the metric/span name and (derived) the OpenAPI operationId */
  operation: Operation;
  /**
   * The use case: path parameters as given (it reads ids itself: not a UUID is not_found) and the raw input.
   * `signal` aborts when a REST client goes before its answer (a long poll stops waiting); other faces pass none.
   */
  run(deps: Deps, ctx: Ctx, params: PathParams, input: unknown, signal?: AbortSignal): Promise<Result<unknown>>;
  /** the strict input the use case parses (REST body or query, GraphQL input or arguments, MCP arguments besides ids) */
  input?: z.ZodObject;
  /** the answer's shape, with descriptions (OpenAPI response, MCP outputSchema) */
  output?: z.ZodType;
  /** refusals beyond those every operation of its kind can answer (unauthenticated, forbidden, validation_failed, …) */
  errors?: ErrorCode[];
  /** the audit actions it records (SPEC §11), if any */
  audit?: readonly AuditAction[];
  rest: RestFace | null;
  graphql: GraphqlFace | null;
  mcp: McpFace;
  /** a well-shaped input, for the authorization sweep (and the docs' example) */
  example?: Record<string, unknown>;
  /** the GraphQL variant of `example` when both faces must not create the same thing (a unique email) */
  graphqlExample?: Record<string, unknown>;
}

/** The entry as written; a function so that a mistake in one is a type error at that entry. */
export const defineOperation = (entry: OperationEntry): OperationEntry => entry;

/** The path parameters of a REST path, in order (`/users/:id/api-keys/:keyId` → id, keyId). */
export function pathParamsOf(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);
}

/** An entry's path parameters: its REST path's, or a GraphQL-only entry's own. */
export function entryPathParams(entry: Pick<OperationEntry, 'rest' | 'graphql'>): readonly string[] {
  return entry.rest ? pathParamsOf(entry.rest.path) : (entry.graphql?.pathParams ?? []);
}

/** Whether the input may be left out entirely: every field optional. */
export function inputOptional(entry: Pick<OperationEntry, 'input'>): boolean {
  return !entry.input || entry.input.safeParse({}).success;
}

/** Why an operation reaches no agent, said once for the identity areas. */
export const NOT_FOR_AGENTS = {
  identityWrite:
    "Acts on users, roles or keys: an agent holding users:write or roles:write could widen its own or another caller's rights, " +
    'and a prompt-injected agent would do so at machine speed. Administration stays with humans on REST and GraphQL.',
  identityRead: 'Reads identity details an agent needs for no tension work (list_users gives it the ids and names it needs).',
  selfService: 'Self-service of a password session: MCP callers come with an API key, which these refuse (session_required).',
} as const;
