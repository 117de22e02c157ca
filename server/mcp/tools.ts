// The tool registry: every MCP tool, over HTTP and stdio alike.
import { z } from 'zod';
import { getMe, meOutput } from '../application/auth/auth.js';
import { defineTool, type ToolDef } from './tool.js';
import { TENSION_TOOLS } from './tension.tools.js';
import { EVENT_TOOLS } from './events.tools.js';
import { USER_TOOLS } from './users.tools.js';

const whoami = defineTool({
  name: 'whoami',
  title: 'Who am I',
  description:
    'Returns exactly what GET /api/v1/auth/me answers: the user this API key belongs to (with its type, human or agent), its roles, ' +
    'the effective permissions, how the call is authenticated and the key in use. Call it first to learn what you may do; tools you ' +
    'lack permissions for are not listed.',
  operation: null,
  input: z.strictObject({}),
  output: meOutput,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: (deps, ctx) => getMe(deps, ctx),
});

export const TOOLS: ToolDef[] = [whoami, ...TENSION_TOOLS, ...USER_TOOLS, ...EVENT_TOOLS];
