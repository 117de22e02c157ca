// Serves the Pothos schema with graphql-yoga at /graphql, GraphiQL rendered offline.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { createYoga, maskError as defaultMaskError } from 'graphql-yoga';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { GraphQLError, NoSchemaIntrospectionCustomRule, type ExecutionArgs } from 'graphql';
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { schema } from '../../schema/index.js';
import type { GraphQLCall, GraphQLContext } from '../../schema/context.js';
import type { Deps } from '../application/context.js';
import { correlationOf, needsCsrfHeader, requestLog } from '../http/request-context.js';
import { laneFindings } from '../http/lane-handover.js';
import { clientAddress } from '../http/session-cookie.js';
import { inSpan, tracingOn } from '../tracing.js';
import { BODY_LIMIT_BYTES, bodyRefusal } from '../http/body.js';
import { REFUSAL_STATUS } from '../http/refusal-status.js';
import { isTransientDatabaseError } from '../persistence/transient.js';
import { unavailable } from '../http/unavailable.js';
import { graphqlError, graphqlErrorBody, toGraphQLError } from '../../schema/errors.js';
import { useListBudget } from './list-budget.js';
import { graphqlLane, type GraphqlLane, type GraphQLServerContext } from './lane.js';

/** By name too: the executor may load graphql's other build (CJS vs ESM), whose class `instanceof` misses. */
function isGraphQLError(e: unknown): e is GraphQLError {
  return e instanceof GraphQLError || (e instanceof Error && e.name === 'GraphQLError');
}

function graphqlRefusal(res: Response, status: number, code: string, message: string) {
  if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
  res.status(status).json(graphqlErrorBody(code, message));
}

/**
 * Parse, validation, variable and armor errors come without a code; every GraphQL error carries one
 * (SPEC §7), so they get the contract's: the body is not JSON, or the request is not valid. An internal
 * error carries the request id, the one thing an operator needs to find it in the logs.
 */
const YOGA_REQUEST_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT']);

function codeRequestErrors(result: unknown, requestId: string | undefined): void {
  for (const r of Array.isArray(result) ? result : [result]) {
    for (const e of (r as { errors?: { message: string; extensions?: Record<string, unknown> }[] } | null)?.errors ?? []) {
      if (e.extensions?.code === 'INTERNAL' || e.extensions?.code === 'UNAVAILABLE')
        (e as { extensions: Record<string, unknown> }).extensions = { ...e.extensions, requestId };
      // yoga's own codes for a document that does not parse (the token limit trips there) or validate.
      if (typeof e.extensions?.code === 'string' && YOGA_REQUEST_CODES.has(e.extensions.code)) {
        (e as { extensions: Record<string, unknown> }).extensions = { ...e.extensions, code: 'VALIDATION_FAILED' };
      }
      // yoga's answer to a method other than GET and POST (405 with Allow): the contract's code for it.
      if (e.extensions?.code === 'BAD_REQUEST' && /only supports GET and POST/.test(e.message)) {
        (e as { extensions: Record<string, unknown> }).extensions = { ...e.extensions, code: 'METHOD_NOT_ALLOWED' };
      }
      if (e.extensions?.code) continue;
      // yoga's CSRF prevention (a request without a preflight-forcing header) is the contract's csrf_required.
      const code = /invalid JSON/i.test(e.message) ? 'INVALID_JSON' : /CSRF/.test(e.message) ? 'CSRF_REQUIRED' : 'VALIDATION_FAILED';
      (e as { extensions: Record<string, unknown> }).extensions = { ...e.extensions, code };
    }
  }
}

type GraphqlHandlers = [RequestHandler, RequestHandler, (err: unknown, req: Request, res: Response, next: NextFunction) => void];

/** Bounds on what one document may ask for: depth, aliases, cost, tokens, directives. */
export const GRAPHQL_LIMITS = { maxDepth: 12, maxAliases: 20, maxCost: 8000, maxTokens: 3000, maxDirectives: 20 };

/** The answer to a GraphQL request that failed outside its resolvers (a bug, or the database down): 500 or 503. */
export function graphqlFailure(err: unknown, requestId: string, log: Deps['logger']): { status: number; headers: [string, string][]; body: unknown } {
  if (isTransientDatabaseError(err)) {
    log.warn({ err }, 'graphql request: database unavailable');
    const down = unavailable();
    return {
      status: 503,
      headers: [['Retry-After', String(down.extensions!.retryAfterSeconds)]],
      body: graphqlErrorBody('UNAVAILABLE', down.detail, { ...down.extensions, requestId }),
    };
  }
  log.error({ err }, 'graphql request failed');
  return { status: 500, headers: [], body: { errors: [{ message: 'Internal error', extensions: { code: 'INTERNAL', requestId } }] } };
}

export function graphqlHandler(deps: Deps): { handlers: GraphqlHandlers; lane: GraphqlLane } {
  const armor = new EnvelopArmor({
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth, ignoreIntrospection: true },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost, ignoreIntrospection: true },
    maxTokens: { n: GRAPHQL_LIMITS.maxTokens },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives },
    blockFieldSuggestion: { enabled: deps.config.env === 'production' },
  });
  const yoga = createYoga<GraphQLServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    // `readBody` below has already read the whole body within BODY_LIMIT_BYTES and refused anything larger
    // (413 PAYLOAD_TOO_LARGE), so yoga's own limit would only re-stream every body through a
    // TransformStream: 15 % of the service's CPU per GraphQL rescore, measured (issue 18).
    maxRequestBodySize: false,
    // yoga's default CORS reflects any Origin with credentials; server/http/cors.ts decides for every path.
    cors: false,
    logging: false,
    landingPage: false,
    graphiql: deps.config.graphiql ? { title: 'Market service GraphiQL', headers: JSON.stringify({ 'X-CSRF-Protection': '1' }) } : false,
    // Loaded on the first GraphiQL page, not at start (~0.2 s of imports).
    renderGraphiQL: async (options) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options),
    context: ({ call }) => ({ deps, ...call }),
    maskedErrors: {
      maskError(error, message, isDev) {
        const original = isGraphQLError(error) ? error.originalError : error;
        if (original && !isGraphQLError(original) && isTransientDatabaseError(original)) {
          // Not a bug: the database cannot serve for now (SPEC §7: 503 unavailable, here its code).
          (requestLog.getStore() ?? deps.logger).warn({ err: original }, 'graphql resolver: database unavailable');
          return toGraphQLError(unavailable());
        }
        if (original && !isGraphQLError(original)) {
          // A bug, not a refusal: log it whole, answer with nothing internal.
          (requestLog.getStore() ?? deps.logger).error({ err: original }, 'graphql resolver failed');
          return graphqlError('INTERNAL', 'Internal error');
        }
        // A refusal (or a parse/validation error): already safe to show, whichever build created it.
        if (isGraphQLError(error)) return error;
        return defaultMaskError(error, message, isDev);
      },
    },
    plugins: [
      ...armor.protect().plugins,
      // SPEC §7: at most LIST_ITEMS_PER_REQUEST list items per operation, refused before it runs.
      useListBudget(schema),
      // One span per operation, active while it executes, so use-case and SQL spans nest under it (with
      // tracing off, the execution runs as it is: no span would record, and the wrapper costs promises).
      {
        onExecute: ({ executeFn, setExecuteFn }: { executeFn: (a: ExecutionArgs) => unknown; setExecuteFn: (fn: (a: ExecutionArgs) => unknown) => void }) => {
          if (!tracingOn()) return;
          setExecuteFn((a) =>
            inSpan(`graphql ${a.operationName ?? 'anonymous'}`, { 'graphql.operation.name': a.operationName ?? '' }, async () => executeFn(a)),
          );
        },
      },
      {
        onResultProcess: ({ result, serverContext }: { result: unknown; serverContext: Partial<GraphQLServerContext> }) =>
          codeRequestErrors(result, serverContext.call?.requestId),
      },
      ...(deps.config.introspection
        ? []
        : [
            {
              onValidate: ({ addValidationRule }: { addValidationRule: (rule: typeof NoSchemaIntrospectionCustomRule) => void }) =>
                addValidationRule(NoSchemaIntrospectionCustomRule),
            },
          ]),
      // Bearer-carrying and header-carrying requests are preflighted by browsers; others are refused.
      useCSRFPrevention({ requestHeaders: ['x-csrf-protection', 'authorization', 'x-graphql-yoga-csrf'] }),
    ],
  });

  const serve = async (req: Request, res: Response, next: NextFunction) => {
    if (req.authRefusal) return graphqlRefusal(res, 401, 'UNAUTHENTICATED', req.authRefusal.detail);
    if (needsCsrfHeader(req)) {
      return graphqlRefusal(res, 403, 'CSRF_REQUIRED', 'Cookie-authenticated requests that change state must send the header X-CSRF-Protection: 1.');
    }
    try {
      const call: GraphQLCall = {
        caller: req.caller,
        requestId: req.requestId,
        clientAddress: clientAddress(req),
        ...correlationOf(req.get('x-correlation-id')),
        http: { req, res },
      };
      await yoga.handle(req, res, { call });
    } catch (err) {
      next(err);
    }
  };
  const errors = (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const refusal = bodyRefusal(err);
    if (refusal) return graphqlRefusal(res, REFUSAL_STATUS[refusal.code], refusal.code.toUpperCase(), refusal.detail);
    if (res.headersSent) {
      req.log.error({ err }, 'graphql request failed after its answer began');
      return void res.destroy();
    }
    const failed = graphqlFailure(err, req.requestId, req.log);
    for (const [k, v] of failed.headers) res.setHeader(k, v);
    res.status(failed.status).json(failed.body);
  };
  // The body is read here, whatever its type, so the limit holds for chunked bodies too; yoga then
  // parses the bytes as it would have read them (compressed bodies are refused: 415).
  // A request the command lane read and left here brings its body along (lane-handover.ts).
  const raw = express.raw({ type: () => true, limit: BODY_LIMIT_BYTES, inflate: false });
  const readBody: RequestHandler = (req, res, next) => {
    const handed = laneFindings(req)?.body;
    if (handed === undefined) return raw(req, res, next);
    req.body = handed;
    next();
  };
  return { handlers: [readBody, serve, errors], lane: graphqlLane(yoga, { onResult: codeRequestErrors, maxTokens: GRAPHQL_LIMITS.maxTokens }) };
}
