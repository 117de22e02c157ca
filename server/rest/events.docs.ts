// OpenAPI descriptions of the event feed's routes (SPEC §10), from the use case's schemas.
import { feedEventOutput, feedFollowQuery, feedPageOutput, listEventsQuery } from '../application/events/events.js';
import type { RouteDoc } from './openapi.js';

export const EVENTS_ROUTE_DOCS: RouteDoc[] = [
  {
    method: 'get',
    path: '/events',
    summary: 'Read the event feed',
    tag: 'events',
    operation: 'events.list',
    description:
      "Every committed event in feed order, a page at a time: pass `nextCursor` as `after`. With `wait`, an empty answer waits up to 30 s for the next commit (a long poll): it counts against the user's 20 open streams and long polls (429 `rate_limited` past that), and answers 401 or 403 as soon as the caller loses the right to read the feed.",
    query: listEventsQuery,
    response: feedPageOutput,
    status: 200,
  },
  {
    method: 'get',
    path: '/events/stream',
    summary: 'Follow the event feed (Server-Sent Events)',
    tag: 'events',
    operation: 'events.list',
    operationId: 'streamEvents',
    description:
      'The event feed as Server-Sent Events: what is committed after `after` (or the `Last-Event-ID` header, which a reconnecting EventSource sends), then every new commit as it happens. A subscriber with 1 MB waiting for it is disconnected and resumes from its last id. A user holds at most 20 open streams and long polls (429 `rate_limited` past that); a stream ends (after a comment `: closed: <code>`) within 2 s of its key being revoked or expiring, its session ending, its user being deactivated or losing `events:read`.',
    query: feedFollowQuery,
    response: feedEventOutput,
    eventStream: true,
    status: 200,
  },
];
