// What every resolver receives: the dependencies, the caller (or null), and the HTTP exchange for cookies.
import type { Request, Response } from 'express';
import type { Caller, Ctx, Deps } from '../server/application/context.js';
import { clientAddress } from '../server/http/session-cookie.js';

export interface GraphQLContext {
  deps: Deps;
  caller: Caller | null;
  requestId: string;
  req: Request;
  res: Response;
}

/** The use-case context of an authenticated GraphQL request (scope auth refuses anonymous ones first). */
export function gqlCtx(context: GraphQLContext): Ctx {
  if (!context.caller) throw new Error('gqlCtx on an unauthenticated request');
  const correlationId = context.req.get('x-correlation-id');
  return {
    caller: context.caller,
    via: 'graphql',
    requestId: context.requestId,
    clientAddress: clientAddress(context.req),
    ...(correlationId && correlationId.length <= 128 ? { correlationId } : {}),
  };
}
