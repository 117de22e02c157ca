// MCP: the event feed (SPEC §10) — `list_events`, the REST parameters without `wait`.
import { z } from 'zod';
import { FEED_LIMIT_MAX, feedEventOutput, KNOWN_EVENT_TYPES, listEvents } from '../application/events/events.js';
import { defineTool, type ToolDef } from './tool.js';

export const EVENT_TOOLS: ToolDef[] = [
  defineTool({
    name: 'list_events',
    title: 'List events (the feed)',
    description:
      'Reads the event feed: every change to every tension, oldest first, each tension in version order. ' +
      "Pass `after` = the previous answer's nextCursor to continue (nextCursor is always present, also when data is empty); " +
      '`after: "now"` starts at the end (only what happens next). Filters: types (event types, e.g. ["TensionRescored"]), streamId (a tension id). ' +
      `limit 1-${FEED_LIMIT_MAX} (default 100). Errors: validation_failed (a cursor this feed did not issue, an unknown type).`,
    operation: 'events.list',
    input: z.strictObject({
      after: z.string().max(2048).optional().describe('nextCursor of a previous answer, or "now"; absent = from the beginning'),
      limit: z.number().int().min(1).max(FEED_LIMIT_MAX).default(100).describe('events per answer (default 100)'),
      types: z
        .array(z.enum(KNOWN_EVENT_TYPES as [string, ...string[]]))
        .max(50)
        .optional()
        .describe('only these event types'),
      streamId: z.uuid().optional().describe("only this tension's events"),
    }),
    output: z.object({ data: z.array(feedEventOutput), nextCursor: z.string() }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    run: (deps, ctx, args) => listEvents(deps, ctx, args),
  }),
];
