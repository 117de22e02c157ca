// MCP over Streamable HTTP at /mcp: stateless, one server per request, bearer API keys only.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Deps } from '../application/context.js';
import { ok, type ErrorCode } from '../domain/errors.js';
import { REFUSAL_STATUS } from '../http/refusal-status.js';
import { BODY_LIMIT_BYTES, bodyRefusal } from '../http/body.js';
import { isForeignOrigin } from '../http/cors.js';
import { isTransientDatabaseError } from '../persistence/transient.js';
import { unavailable } from '../http/unavailable.js';
import { clientAddress } from '../http/session-cookie.js';
import { batchRefusal } from './batch.js';
import { mcpChallenge } from '../oauth/http.js';

/** The MCP SDK loads on the first /mcp request, not at start (~0.35 s of imports). */
let sdk: Promise<[typeof import('./server.js'), typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')]> | undefined;
const loadSdk = () => (sdk ??= Promise.all([import('./server.js'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]));

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

export function mcpHandler(deps: Deps) {
  // SPEC §8, and the MCP specification against DNS rebinding: a browser page of another origin gets nothing.
  const sameOrigin = (req: Request, res: Response, next: NextFunction) => {
    if (!isForeignOrigin(deps, req)) return next();
    refusal(res, 'forbidden', 'This Origin may not call /mcp: only the service itself and the origins in CORS_ORIGINS may.');
  };
  const serve = async (req: Request, res: Response, next: NextFunction) => {
    if (req.authRefusal) return unauthenticated(deps, req, res, req.authRefusal.detail);
    // A cookie is not enough here: MCP clients are agents and scripts, which carry keys.
    if (!req.caller || (req.caller.authenticatedBy !== 'api_key' && req.caller.authenticatedBy !== 'oauth')) {
      return unauthenticated(deps, req, res, 'MCP needs `Authorization: Bearer <token>`: an OAuth access token or an API key.');
    }
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return refusal(res, 'method_not_allowed', 'Method not allowed: this server is stateless, use POST.');
    }
    // Before the SDK sees it: the SDK takes batches of up to 100 on every revision.
    const batch = batchRefusal(req.body, req.get('mcp-protocol-version'));
    if (batch) return refusal(res, batch.code, batch.detail, batch.extensions);
    try {
      const [{ createMcpServer, guardToolCalls }, { StreamableHTTPServerTransport }] = await loadSdk();
      const ctx = { caller: req.caller, via: 'mcp' as const, requestId: req.requestId, clientAddress: clientAddress(req) };
      const server = createMcpServer(deps, async () => ok(ctx));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      guardToolCalls(transport);
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
