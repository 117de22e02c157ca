// MCP tools from the operation registry (server/application/operations.ts): one tool per entry whose MCP
// face is `exposed: true`. Its arguments are the path ids (strings, read by the use case as REST reads a
// path: not a UUID is not_found) and the input's fields; the use case parses them with its own schema.
// Only tool definitions are generated here: server/mcp/server.ts registers them with the SDK as any other.
import { z } from 'zod';
import { pathParamsOf, type OperationEntry } from '../application/operations.js';
import { OPERATIONS } from '../application/registry.js';
import { permissionOf } from '../application/permission-table.js';
import { ok } from '../domain/errors.js';
import type { Ctx, Deps } from '../application/context.js';
import { defineTool, type ToolDef } from './tool.js';

const idArg = (name: string, description?: string) =>
  z
    .string()
    .min(1)
    .max(100)
    .describe(description ?? `The ${name === 'keyId' ? 'API key' : 'target'} id (a UUID).`);

export function operationTool(entry: OperationEntry): ToolDef {
  const mcp = entry.mcp;
  if (mcp.exposed !== true) throw new Error(`MCP: ${entry.operation} is not exposed`);
  const params = entry.rest ? pathParamsOf(entry.rest.path) : [];
  const write = entry.graphql?.kind === 'mutation';
  // the tool's own arguments (parsed by the server), or the use case's input (parsed by the use case)
  const shape = mcp.input?.shape ?? entry.input?.shape ?? {};
  return defineTool({
    name: mcp.name,
    title: mcp.title,
    description: mcp.description,
    // ToolDef's null: any caller (a row without a permission, whoami's)
    operation: permissionOf(entry.operation) === null ? null : entry.operation,
    input: z.strictObject({ ...Object.fromEntries(params.map((p) => [p, idArg(p, mcp.params?.[p])])), ...shape }),
    // the use case parses its own input; without one, the server's strict parse refuses any argument
    ...(entry.input && !mcp.input ? { rawArguments: true } : {}),
    ...(write ? { idempotent: true } : {}),
    output: entry.output ?? z.object({}),
    annotations: { ...mcp.annotations, openWorldHint: mcp.annotations.openWorldHint ?? false },
    // named by its operation (a closure made in a loop), so a stack trace and a profile say which tool ran
    run: Object.defineProperty(
      async function run(deps: Deps, ctx: Ctx, args: Record<string, unknown>) {
        const all = args;
        const ids = Object.fromEntries(params.map((p) => [p, String(all[p])]));
        const input = Object.fromEntries(Object.entries(all).filter(([k]) => !params.includes(k)));
        const result = await entry.run(deps, ctx, ids, entry.input ? input : undefined);
        // `output` is the REST answer's shape, so a tool answers as REST does (a list as `{ data: [...] }`)
        return result.ok && entry.rest?.answer ? ok(entry.rest.answer(result.value)) : result;
      },
      'name',
      { value: `mcp ${entry.operation}` },
    ),
  });
}

/** Every exposed registry entry's tool. */
export const OPERATION_TOOLS: ToolDef[] = OPERATIONS.filter((e) => e.mcp.exposed === true).map(operationTool);
