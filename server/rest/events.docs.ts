// OpenAPI description of the event feed's stream (SPEC §10), from the use case's schemas; its pages
// (GET /events) are generated from the operation registry (application/events/events.operations.ts).
import { feedEventOutput, feedFollowQuery } from '../application/events/events.js';
import type { RouteDoc } from './openapi.js';

export const EVENTS_ROUTE_DOCS: RouteDoc[] = [
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
