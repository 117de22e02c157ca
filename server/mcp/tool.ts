// The shape of one MCP tool: a use case with its input/output schemas, annotations and permission.
import type { z } from 'zod';
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { Ctx, Deps } from '../application/context.js';
import type { Operation } from '../application/permission-table.js';
import type { Result } from '../domain/errors.js';

export interface ToolDef<I extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** written for a model: what it does, when to use it, what its errors mean */
  description: string;
  /** the permission-table entry whose check (in the use case) gates it, and that filters tools/list; null = any caller */
  operation: Operation | null;
  /** the schema tools/list shows; the server parses arguments with it unless `rawArguments` */
  input: I;
  /**
   * The use case parses the arguments itself (with the very schema shown here): the server passes them as
   * given, apart from an `id`, which it checks as REST checks a path (SPEC §8: not a UUID is validation_failed).
   */
  rawArguments?: boolean;
  /** a write: takes an optional `idempotencyKey` argument (SPEC §12), which the server takes out before `input` sees the rest */
  idempotent?: boolean;
  output: z.ZodType;
  annotations: ToolAnnotations;
  run(deps: Deps, ctx: Ctx, args: z.output<I>): Promise<Result<unknown>>;
}

export function defineTool<I extends z.ZodObject>(def: ToolDef<I>): ToolDef {
  return def;
}
