// The tool registry: every MCP tool, over HTTP and stdio alike.
import { z } from 'zod';
import { ok } from '../domain/errors.js';
import { expandGrants } from '../domain/permissions.js';
import { callerGrants } from '../application/authorize.js';
import { defineTool, type ToolDef } from './tool.js';
import { TENSION_TOOLS } from './tension.tools.js';
import { EVENT_TOOLS } from './events.tools.js';

const whoami = defineTool({
  name: 'whoami',
  title: 'Who am I',
  description:
    'Returns the user this API key belongs to, its type (human or agent), the key in use and the effective permissions. ' +
    'Call it first to learn what you may do; tools you lack permissions for are not listed.',
  operation: null,
  input: z.strictObject({}),
  output: z.object({
    user: z.object({ id: z.string().nullable(), name: z.string().nullable(), kind: z.enum(['human', 'agent', 'system']) }),
    apiKey: z.object({ id: z.string(), name: z.string() }).nullable(),
    permissions: z.array(z.string()),
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: async (_deps, ctx) =>
    ok({
      user: { id: ctx.caller.userId, name: ctx.caller.userName, kind: ctx.caller.kind },
      apiKey: ctx.caller.apiKey,
      permissions: expandGrants(callerGrants(ctx.caller)),
    }),
});

export const TOOLS: ToolDef[] = [whoami, ...TENSION_TOOLS, ...EVENT_TOOLS];
