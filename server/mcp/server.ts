// One MCP server per caller: lists exactly the tools the caller may use, and runs them through the
// same permission check, input parsing and error codes as the other faces.
import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type JSONRPCErrorResponse } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Ctx, Deps } from '../application/context.js';
import { authorize, mayPerform } from '../application/authorize.js';
import { parseInput } from '../application/validate.js';
import { idempotentCall, replayedResult } from '../application/idempotency.js';
import { isTransientDatabaseError } from '../persistence/transient.js';
import { unavailable } from '../http/unavailable.js';
import { ok, REFUSAL_CODES, refuse, type FieldError, type Refusal, type Result } from '../domain/errors.js';
import { TOOLS } from './tools.js';
import { serviceVersion } from '../version.js';
import type { ToolDef } from './tool.js';

export const MCP_SERVER_INFO = { name: 'market-service', version: serviceVersion() };

/**
 * SPEC §8: every published revision from 2025-03-26 on, newest first, and 2024-11-05, which /mcp served
 * before and still may. The SDK serves 2026-07-28 (stateless: the version and client capabilities in each
 * request's `_meta`, `server/discover`) on its own; this list decides which older revisions `initialize`
 * accepts (it counter-offers 2025-11-25 to a client asking for another), and is what the error for an
 * unsupported revision names.
 */
export const MCP_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/**
 * The caching hints 2026-07-28 requires on list results (server/utilities/caching). tools/list is filtered by
 * the caller's grants, so only that caller may reuse it ("private"), and for a minute: a role change shows in
 * tools/list within that minute, while tools/call checks the grants on every call. server/discover says the
 * same to everyone ("public"). 2025 revisions carry no such fields; the SDK adds them only on 2026 answers.
 */
export const MCP_CACHE_HINTS = {
  'tools/list': { ttlMs: 60_000, cacheScope: 'private' },
  'server/discover': { ttlMs: 300_000, cacheScope: 'public' },
} as const;

function allowed(ctx: Ctx, tool: ToolDef): boolean {
  return tool.operation === null || mayPerform(ctx.caller, tool.operation);
}

function errorResult(refusal: Refusal): CallToolResult {
  return toolError({ code: refusal.code, detail: refusal.detail, ...refusal.extensions });
}

function successResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/** The optional `idempotencyKey` of write tools (SPEC §12), as tools/list shows it. */
const idempotencyKeyInput = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x20-\x7e]+$/)
  .optional()
  .describe(
    'Makes the call safe to retry: the first result is kept for 24 hours, and a retry with the same key, tool and arguments gets it ' +
      'back (with _meta.idempotentReplayed) and changes nothing. The same key with other arguments is the error idempotency_key_reused; ' +
      'a retry while the first call still runs is idempotency_in_progress. 1-255 printable ASCII characters, e.g. a UUID per intended change.',
  );

function inputOf(tool: ToolDef): z.ZodObject {
  return tool.idempotent ? tool.input.extend({ idempotencyKey: idempotencyKeyInput }) : tool.input;
}

function toolError(body: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

/**
 * The SDK validates a tools/call itself, before any handler, and answers malformed params (a missing
 * name, non-object `arguments`) with -32602 and zod's issue list as the message. A request that breaks
 * the protocol's own schema is JSON-RPC's -32602 Invalid params said in a sentence (SPEC §8), with the
 * contract's `validation_failed` and coded field errors in `data`. So each face asks this before the SDK
 * sees a message (HTTP on the parsed body, stdio on each line) and sends the answer itself when there is
 * one. Arguments that are an object but fail the tool's input schema stay tool results (`validation_failed`).
 */
export function toolCallRefusal(message: unknown): JSONRPCErrorResponse | null {
  const m = message as { id?: unknown; method?: unknown; params?: unknown } | null;
  if (!m || typeof m !== 'object' || m.method !== 'tools/call' || (typeof m.id !== 'string' && typeof m.id !== 'number')) return null;
  const errors: FieldError[] = [];
  const params = m.params as { name?: unknown; arguments?: unknown } | undefined;
  if (params === undefined) errors.push({ path: 'params', message: 'is required', code: 'required', params: {} });
  else if (!params || typeof params !== 'object' || Array.isArray(params)) {
    errors.push({ path: 'params', message: 'must be an object', code: 'invalid_type', params: { expected: 'object' } });
  } else {
    if (params.name === undefined) errors.push({ path: 'name', message: 'is required', code: 'required', params: {} });
    else if (typeof params.name !== 'string')
      errors.push({ path: 'name', message: 'must be the tool name (a string)', code: 'invalid_type', params: { expected: 'string' } });
    const args = params.arguments;
    if (args !== undefined && (!args || typeof args !== 'object' || Array.isArray(args))) {
      errors.push({ path: 'arguments', message: 'must be an object', code: 'invalid_type', params: { expected: 'object' } });
    }
  }
  if (!errors.length) return null;
  return {
    jsonrpc: '2.0',
    id: m.id,
    error: {
      code: ProtocolErrorCode.InvalidParams,
      message: 'Invalid params: a tools/call needs the tool name as a string and its arguments as an object.',
      data: { code: 'validation_failed', errors },
    },
  };
}

/** SPEC §7: a tool that fails internally answers `internal_error` and the request id, nothing of the failure. */
const INTERNAL_ERROR = 'internal_error';

function jsonSchema(schema: z.ZodType, io: 'input' | 'output') {
  const json = withoutTypeArrays(z.toJSONSchema(schema, { io, unrepresentable: 'any' })) as { type: 'object'; [k: string]: unknown };
  delete json.$schema;
  return json;
}

/** SPEC §8: `type: ["string", "null"]` becomes `anyOf: [{type: "string", …}, {type: "null"}]` (some providers reject type arrays). */
export function withoutTypeArrays(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(withoutTypeArrays);
  if (!json || typeof json !== 'object') return json;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(json)) out[k] = withoutTypeArrays(v);
  if (Array.isArray(out.type)) {
    const { type, description, ...rest } = out as { type: string[]; description?: string };
    return { ...(description ? { description } : {}), anyOf: type.map((t) => (t === 'null' ? { type: 'null' } : { type: t, ...rest })) };
  }
  return out;
}

/** A use-case-parsed tool's arguments: as given, once its `id` (if the tool has one) fits the schema shown. */
function rawArguments(tool: ToolDef, args: Record<string, unknown>): Result<Record<string, unknown>> {
  const id = tool.input.shape.id as z.ZodType | undefined;
  if (!id) return ok(args);
  const checked = parseInput(z.looseObject({ id }), args);
  return checked.ok ? ok(args) : checked;
}

/** The structuredContent of an error result: `{code, detail, ...extensions}` (SPEC §7). */
const ERROR_CONTENT = jsonSchema(z.looseObject({ code: z.enum([...REFUSAL_CODES, INTERNAL_ERROR]), detail: z.string() }), 'output');

/**
 * A tool's structuredContent is its result or, with isError, the error object. SDK clients validate
 * structuredContent against outputSchema even on error results (typescript-sdk#1943), so a schema
 * naming only the success shape would turn every coded error into a -32602 protocol error.
 */
function outputSchema(tool: ToolDef) {
  return { type: 'object' as const, anyOf: [jsonSchema(tool.output, 'output'), ERROR_CONTENT] };
}

/**
 * `resolveCtx` is asked on every request, so a key revoked mid-session (stdio) is refused on the
 * very next call; over HTTP it is the request's own context.
 */
export function createMcpServer(deps: Deps, resolveCtx: () => Promise<Result<Ctx>>): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    supportedProtocolVersions: MCP_PROTOCOL_VERSIONS,
    cacheHints: MCP_CACHE_HINTS,
    instructions:
      'Market service: tensions are gaps between a current and a desired state, experienced by market actors. ' +
      'Call whoami first. Every write returns the tension and the event it appended (null when nothing changed). ' +
      'On version_conflict, reload the tension and decide again; the server never retries for you.',
  });

  /** A bug logged whole; the client learns only that it happened and the id to report. */
  const internal = (err: unknown, requestId: string) => {
    if (isTransientDatabaseError(err)) {
      // Not a bug: the database cannot serve for now (SPEC §7); the client may retry.
      deps.logger.warn({ err, requestId }, 'mcp handler: database unavailable');
      const down = unavailable();
      return { code: down.code, detail: down.detail, ...down.extensions, requestId };
    }
    deps.logger.error({ err, requestId }, 'mcp handler failed');
    return { code: INTERNAL_ERROR, detail: 'Internal error: the request failed on the server. Report the requestId.', requestId };
  };

  server.setRequestHandler('tools/list', async () => {
    let requestId: string = deps.newId();
    try {
      const resolved = await resolveCtx();
      if (!resolved.ok) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, resolved.detail, { code: resolved.code });
      const ctx = resolved.value;
      requestId = ctx.requestId;
      return {
        tools: TOOLS.filter((t) => allowed(ctx, t)).map((t) => ({
          name: t.name,
          title: t.title,
          description: t.description,
          inputSchema: jsonSchema(inputOf(t), 'input'),
          outputSchema: outputSchema(t),
          annotations: { title: t.title, ...t.annotations },
        })),
      };
    } catch (err) {
      // Protocol-level errors never echo an exception's message (it may hold SQL or a driver's words).
      if (err instanceof ProtocolError) throw err;
      throw new ProtocolError(ProtocolErrorCode.InternalError, 'Internal error', internal(err, requestId));
    }
  });

  server.setRequestHandler('tools/call', async (request): Promise<CallToolResult> => {
    let requestId: string = deps.newId();
    try {
      const resolved = await resolveCtx();
      if (!resolved.ok) return errorResult(resolved);
      const ctx = resolved.value;
      requestId = ctx.requestId;
      const tool = TOOLS.find((t) => t.name === request.params.name);
      if (!tool) return errorResult(refuse('not_found', `No tool named ${request.params.name}.`));
      // The use case checks the permission too; asking the same check first keeps `forbidden` ahead of this face's
      // own schema check (the id), as REST's router answers 403 before it reads a path.
      if (tool.operation) {
        const denied = authorize(ctx, tool.operation);
        if (denied) return errorResult(denied);
      }
      const given = { ...(request.params.arguments ?? {}) };
      const rawKey = tool.idempotent ? given.idempotencyKey : undefined;
      if (tool.idempotent) delete given.idempotencyKey;
      const call = { rawKey, keyField: 'idempotencyKey', method: 'MCP', path: tool.name, body: given };
      const outcome = await idempotentCall(deps, ctx, call, async () => {
        const args = tool.rawArguments ? rawArguments(tool, given) : parseInput(tool.input, given);
        return args.ok ? await tool.run(deps, ctx, args.value) : args;
      });
      if (!outcome.ok) return errorResult(outcome);
      if (!outcome.value.replayed) return outcome.value.result.ok ? successResult(outcome.value.result.value) : errorResult(outcome.value.result);
      // A replay: the first answer again, flagged as REST flags it with Idempotent-Replayed.
      const replayed = replayedResult(outcome.value.answer);
      return { ...(replayed.ok ? successResult(replayed.value) : errorResult(replayed)), _meta: { idempotentReplayed: true } };
    } catch (err) {
      return toolError(internal(err, requestId));
    }
  });
  return server;
}
