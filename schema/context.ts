// What every resolver receives: the dependencies, the caller (or null), who called from where, and, for the
// fields that set or clear the session cookie, Express's HTTP exchange.
import type { Request, Response } from 'express';
import type { Caller, Ctx, Deps } from '../server/application/context.js';

/** What the HTTP face knows of one GraphQL request before it runs (Express's path and the command lane alike). */
export interface GraphQLCall {
  caller: Caller | null;
  requestId: string;
  /** the client for throttles, logs and the audit trail (session-cookie.ts `clientAddress`) */
  clientAddress: string;
  /** the caller's `X-Correlation-Id`, when it is at most CORRELATION_ID_MAX characters (request-context.ts `correlationOf`) */
  correlationId?: string;
  /**
   * Express's exchange, for the fields marked `HTTP_EXCHANGE` (they set or clear the session cookie). The
   * command lane (server/http/command-lane.ts) never runs an operation with such a field, so it has none.
   */
  http?: { req: Request; res: Response };
}

export interface GraphQLContext extends GraphQLCall {
  deps: Deps;
}

/** A field's extensions when its resolver needs `http` (the command lane leaves its operations to Express). */
export const HTTP_EXCHANGE = { extensions: { httpExchange: true } } as const;

/** The HTTP exchange of a field marked `HTTP_EXCHANGE`; its absence is a bug (the mark is missing). */
export function httpExchange(context: GraphQLContext): { req: Request; res: Response } {
  if (!context.http) throw new Error('this field needs the HTTP exchange: mark it with HTTP_EXCHANGE');
  return context.http;
}

/** The use-case context of an authenticated GraphQL request (scope auth refuses anonymous ones first). */
export function gqlCtx(context: GraphQLContext): Ctx {
  if (!context.caller) throw new Error('gqlCtx on an unauthenticated request');
  return {
    caller: context.caller,
    via: 'graphql',
    requestId: context.requestId,
    clientAddress: context.clientAddress,
    ...(context.correlationId ? { correlationId: context.correlationId } : {}),
  };
}
