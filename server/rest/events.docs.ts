// OpenAPI descriptions of the event feed's routes (SPEC §10), from the use case's schemas.
import { z } from 'zod';
import { feedFollowQuery, listEventsQuery } from '../application/events/events.js';
import type { RouteDoc } from './openapi.js';

const feedEvent = z.object({
  position: z.number().int().describe('Global position; increasing, gaps allowed'),
  id: z.string().uuid().describe('The event id (also the NATS Nats-Msg-Id)'),
  streamType: z.string().describe("The stream's type ('tension')"),
  streamId: z.string().uuid().describe('The tension id'),
  version: z.number().int().describe('1-based version within the stream'),
  type: z.string().describe('Event type, e.g. TensionRescored'),
  schemaVersion: z.number().int().describe("Version of the event's data shape"),
  data: z.record(z.string(), z.unknown()).describe('Event data (SPEC §3)'),
  metadata: z.record(z.string(), z.unknown()).describe('Who, through which face, with which request (SPEC §2, without apiKeyId)'),
  occurredAt: z.string().describe('ISO 8601 instant'),
});

const feedPage = z.object({
  data: z.array(feedEvent).describe('Events, oldest first'),
  nextCursor: z.string().describe('Where to resume; always present, also when data is empty'),
});

export const EVENTS_ROUTE_DOCS: RouteDoc[] = [
  { method: 'get', path: '/events', summary: 'The event feed in feed order; `wait` long-polls up to 30 s for the next commit', tag: 'events', operation: 'events.list', query: listEventsQuery, response: feedPage, status: 200 },
  { method: 'get', path: '/events/stream', summary: 'The event feed as Server-Sent Events; resumes from `Last-Event-ID`', tag: 'events', operation: 'events.list', operationId: 'events.stream', query: feedFollowQuery, response: feedEvent, eventStream: true, status: 200 },
];
