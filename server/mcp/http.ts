// MCP over Streamable HTTP at /mcp: stateless, one server per request, bearer API keys only.
import type { NextFunction, Request, Response } from 'express';
import type { Deps } from '../application/context.js';

/** The MCP SDK loads on the first /mcp request, not at start (~0.35 s of imports). */
let sdk: Promise<[typeof import('./server.js'), typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')]> | undefined;
const loadSdk = () => (sdk ??= Promise.all([import('./server.js'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]));

function unauthenticated(res: Response, message: string) {
  res.setHeader('WWW-Authenticate', 'Bearer');
  res.status(401).json({ jsonrpc: '2.0', error: { code: -32001, message, data: { code: 'unauthenticated' } }, id: null });
}

export function mcpHandler(deps: Deps) {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (req.authRefusal) return unauthenticated(res, req.authRefusal.detail);
    // A cookie is not enough here: MCP clients are agents and scripts, which carry keys.
    if (!req.caller || req.caller.authenticatedBy !== 'api_key') {
      return unauthenticated(res, 'MCP needs `Authorization: Bearer <API_KEY>`.');
    }
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return res.status(405).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless, use POST.' }, id: null });
    }
    try {
      const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await loadSdk();
      const ctx = { caller: req.caller, via: 'mcp' as const, requestId: req.requestId };
      const server = createMcpServer(deps, async () => ctx);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
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
}
