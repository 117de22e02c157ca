// MCP over Streamable HTTP at /mcp: stateless, one server per request, bearer API keys only. The
// 2026-07-28 revision (a `_meta` envelope in every request) goes to the SDK's per-request handler; the
// 2025 revisions (initialize, then requests without an envelope) to a JSON-answering stateless transport.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Ctx, Deps } from '../application/context.js';
import { ok, refuse, type ErrorCode, type Refusal, type Result } from '../domain/errors.js';
import { REFUSAL_STATUS } from '../http/refusal-status.js';
import { BODY_LIMIT_BYTES, bodyRefusal } from '../http/body.js';
import { isForeignOrigin } from '../http/cors.js';
import { isTransientDatabaseError } from '../persistence/transient.js';
import { unavailable } from '../http/unavailable.js';
import { clientAddress } from '../http/session-cookie.js';
import { batchRefusal } from './batch.js';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import { mcpChallenge } from '../oauth/http.js';

/** The MCP SDK loads on the first /mcp request, not at start (~0.35 s of imports). */
const loadSdk = () => Promise.all([import('./server.js'), import('@modelcontextprotocol/server'), import('@modelcontextprotocol/node')]);
type Sdk = Awaited<ReturnType<typeof loadSdk>>;

/** A JSON-RPC error outside any request (id null), its contract code in `data.code`. */
function jsonRpcError(res: Response, status: number, rpcCode: number, message: string, data: Record<string, unknown>) {
  res.status(status).json({ jsonrpc: '2.0', error: { code: rpcCode, message, data }, id: null });
}

/** JSON-RPC's own codes where one fits: a body that is not JSON, and a body that is not a request the server takes. */
const RPC_CODES: Partial<Record<ErrorCode, number>> = { invalid_json: -32700, unauthenticated: -32001, validation_failed: -32600, too_costly: -32600 };

function refusal(res: Response, code: ErrorCode, message: string, extra: Record<string, unknown> = {}) {
  jsonRpcError(res, REFUSAL_STATUS[code], RPC_CODES[code] ?? -32000, message, { code, ...extra });
}

function unauthenticated(deps: Deps, req: Request, res: Response, message: string) {
  res.setHeader('WWW-Authenticate', mcpChallenge(deps, req.get('authorization') !== undefined));
  refusal(res, 'unauthenticated', message);
}

/**
 * Who calls /mcp: the request's authenticated caller, when it came with a credential MCP takes. A cookie is
 * not enough here (SPEC §8): MCP clients are agents and scripts, which carry keys or OAuth access tokens
 * (SPEC §13; the token is checked by server/oauth before this).
 */
export function mcpCaller(req: Request): Result<Ctx> {
  if (req.authRefusal) return req.authRefusal;
  if (!req.caller || (req.caller.authenticatedBy !== 'api_key' && req.caller.authenticatedBy !== 'oauth')) {
    return refuse('unauthenticated', 'MCP needs a bearer credential: an OAuth access token or an API key, as Authorization: Bearer <token>.');
  }
  return ok({ caller: req.caller, via: 'mcp' as const, requestId: req.requestId, clientAddress: clientAddress(req) });
}

/**
 * SPEC §8: a revision this server does not serve gets UnsupportedProtocolVersionError (-32022) naming every
 * revision it serves. The SDK's 2026 leg names only the 2026 ones; a dual-era client picks from the list
 * what it speaks (the specification's own example lists a 2025 revision beside 2026-07-28).
 */
async function withAllRevisions(response: globalThis.Response, versions: string[]): Promise<globalThis.Response> {
  if (response.status !== 400 || !response.headers.get('content-type')?.includes('application/json')) return response;
  const body = (await response.json()) as { error?: { code?: number; data?: { supported?: string[] } } };
  if (body.error?.code === -32022 && body.error.data) body.error.data.supported = versions;
  return new globalThis.Response(JSON.stringify(body), { status: response.status, headers: response.headers });
}

export function mcpHandler(deps: Deps) {
  // SPEC §8, and the MCP specification against DNS rebinding: a browser page of another origin gets nothing.
  const sameOrigin = (req: Request, res: Response, next: NextFunction) => {
    if (!isForeignOrigin(deps, req)) return next();
    refusal(res, 'forbidden', 'This Origin may not call /mcp: only the service itself and the origins in CORS_ORIGINS may.');
  };
  /** This app's 2026-07-28 handler, made on the first request (it holds no state between requests). */
  let modern: NodeMcpRequestHandler | undefined;
  const modernHandler = ([{ createMcpServer, MCP_PROTOCOL_VERSIONS }, { createMcpHandler }, { toNodeHandler }]: Sdk) => {
    if (modern) return modern;
    const handler = createMcpHandler(({ authInfo }) => createMcpServer(deps, async () => ok((authInfo!.extra as { ctx: Ctx }).ctx)), {
      legacy: 'reject',
      responseMode: 'auto',
      onerror: (err) => deps.logger.debug({ err }, 'mcp request refused'),
    });
    return (modern = toNodeHandler({ fetch: async (request, options) => withAllRevisions(await handler.fetch(request, options), MCP_PROTOCOL_VERSIONS) }));
  };
  const serve = async (req: Request, res: Response, next: NextFunction) => {
    const caller = mcpCaller(req);
    if (!caller.ok) return unauthenticated(deps, req, res, caller.detail);
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return refusal(res, 'method_not_allowed', 'Method not allowed: this server is stateless, use POST.');
    }
    // Before the SDK sees it: the SDK takes batches of up to 100 on every revision.
    const batch: Refusal | null = batchRefusal(req.body, req.get('mcp-protocol-version'));
    if (batch) return refusal(res, batch.code, batch.detail, batch.extensions);
    try {
      const sdk = await loadSdk();
      const [{ createMcpServer, toolCallRefusal }, { isLegacyRequest }, { toWebRequest, NodeStreamableHTTPServerTransport }] = sdk;
      const malformed = toolCallRefusal(req.body);
      if (malformed) return void res.status(200).json(malformed);
      const ctx = caller.value;
      if (!(await isLegacyRequest(await toWebRequest(req, req.body), req.body))) {
        // The SDK hands `req.auth` to the server factory as authInfo: the caller authenticated above.
        const auth: AuthInfo = { token: '', clientId: ctx.caller.userId ?? '', scopes: [], extra: { ctx } };
        Object.assign(req, { auth });
        return await modernHandler(sdk)(req, res, req.body);
      }
      const server = createMcpServer(deps, async () => ok(ctx));
      const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      next(err);
    }
  };
  // Body failures and bugs as JSON-RPC errors; a bug's message never leaves the server.
  const errors = (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const refused = bodyRefusal(err);
    if (refused) return refusal(res, refused.code, refused.detail);
    if (res.headersSent) {
      req.log.error({ err }, 'mcp request failed');
      return res.end();
    }
    if (isTransientDatabaseError(err)) {
      req.log.warn({ err }, 'mcp request: database unavailable');
      const down = unavailable();
      res.setHeader('Retry-After', String(down.extensions!.retryAfterSeconds));
      return refusal(res, 'unavailable', down.detail, { ...down.extensions, requestId: req.requestId });
    }
    req.log.error({ err }, 'mcp request failed');
    jsonRpcError(res, 500, -32603, 'Internal error', { code: 'internal_error', requestId: req.requestId });
  };
  const readBody = express.json({ limit: BODY_LIMIT_BYTES });
  return [sameOrigin, readBody, serve, errors] as [
    RequestHandler,
    RequestHandler,
    RequestHandler,
    (err: unknown, req: Request, res: Response, next: NextFunction) => void,
  ];
}
