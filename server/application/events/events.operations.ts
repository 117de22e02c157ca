// The event feed's pages (SPEC §10): `GET /events`, the `events` query and the `list_events` tool, from one
// entry (server/application/operations.ts). The feed's stream is no request and answer: the SSE route
// (server/rest/events.routes.ts) and the GraphQL subscription (schema/events/events.queries.ts) stay
// hand-written, and so does the long poll's waiting, inside `listEvents` (REST hands it the request's signal).
//
// MCP: exposed. Following what happens to tensions is an agent's work, and reading the feed widens no rights.
import { z } from 'zod';
import { uuidSchema } from '../schemas.js';
import { limitParam } from '../paging.js';
import { defineOperation, type OperationEntry } from '../operations.js';
import { FEED_LIMIT_MAX, feedPageOutput, KNOWN_EVENT_TYPES, listEvents, listEventsQuery } from './events.js';

/** The tool's arguments: the REST parameters without `wait` (a tool call does not hang), typed as JSON. */
const listEventsTool = z.strictObject({
  after: z.string().max(2048).optional().describe('nextCursor of a previous answer, or "now"; absent = from the beginning'),
  limit: limitParam(FEED_LIMIT_MAX, 100, 'events per answer (default 100)'),
  types: z
    .array(z.enum(KNOWN_EVENT_TYPES as [string, ...string[]]))
    .max(50)
    .optional()
    .describe('only these event types'),
  streamId: uuidSchema.optional().describe("only this tension's events"),
});

export const EVENT_OPERATIONS: OperationEntry[] = [
  defineOperation({
    operation: 'events.list',
    run: (deps, ctx, _p, input, signal) => listEvents(deps, ctx, input, signal),
    input: listEventsQuery,
    output: feedPageOutput,
    rest: {
      method: 'get',
      path: '/events',
      status: 200,
      tag: 'events',
      input: 'query',
      summary: 'Read the event feed',
      description:
        "Every committed event in feed order, a page at a time: pass `nextCursor` as `after`. With `wait`, an empty answer waits up to 30 s for the next commit (a long poll): it counts against the user's 20 open streams and long polls (429 `rate_limited` past that), and answers 401 or 403 as soon as the caller loses the right to read the feed.",
    },
    // GraphQL has no long poll (its subscription follows the feed) and states the limit as an Int
    graphql: {
      kind: 'query',
      field: 'events',
      type: 'FeedPage',
      args: 'flat',
      input: listEventsQuery.omit({ wait: true }),
      description: 'Events after the cursor in feed order (SPEC §10); `after: "now"` starts at the end.',
    },
    mcp: {
      exposed: true,
      why: 'Following what happens to tensions is tension work, and reading the feed widens no rights.',
      name: 'list_events',
      title: 'List events (the feed)',
      description:
        'Reads the event feed: every change to every tension, oldest first, each tension in version order. ' +
        "Pass `after` = the previous answer's nextCursor to continue (nextCursor is always present, also when data is empty); " +
        '`after: "now"` starts at the end (only what happens next). Filters: types (event types, e.g. ["TensionRescored"]), streamId (a tension id). ' +
        `limit 1-${FEED_LIMIT_MAX} (default 100). Errors: validation_failed (a cursor this feed did not issue, an unknown type).`,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      input: listEventsTool,
    },
  }),
];
