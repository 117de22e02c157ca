// MCP: finding users, for an agent choosing a lead (SPEC §8 `list_users`): id, name, type and status only.
import { z } from 'zod';
import { ok } from '../domain/errors.js';
import { listUsers } from '../application/users/users.js';
import { cursorSchema, limitParam } from '../application/paging.js';
import { defineTool, type ToolDef } from './tool.js';

const userSummary = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(['human', 'agent']),
  status: z.enum(['active', 'deactivated']),
});

export const USER_TOOLS: ToolDef[] = [
  defineTool({
    name: 'list_users',
    title: 'List users',
    description:
      'Lists the users who operate the service (humans and agents): id, name, type and status, newest first. Use it to find the ' +
      'leadUserId for set_tension_lead or sense_tension (only an active user can lead). Filters: q (text in the name or email), ' +
      'type, status; pages with limit (1-100, default 20) and cursor (pass back nextCursor; null means the last page).',
    operation: 'users.list',
    input: z.strictObject({
      q: z.string().max(200).optional().describe('Text to find in the name or email (case-insensitive), at most 200 characters.'),
      type: z.enum(['human', 'agent']).optional().describe('Only users of this type.'),
      status: z.enum(['active', 'deactivated']).optional().describe('Only users with this status; active users can lead tensions.'),
      limit: limitParam(100, 20, 'How many users per page, 1-100 (default 20).'),
      cursor: cursorSchema,
    }),
    output: z.object({ data: z.array(userSummary), nextCursor: z.string().nullable() }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    run: async (deps, ctx, args) => {
      const page = await listUsers(deps, ctx, args);
      if (!page.ok) return page;
      return ok({ data: page.value.data.map(({ id, name, type, status }) => ({ id, name, type, status })), nextCursor: page.value.nextCursor });
    },
  }),
];
