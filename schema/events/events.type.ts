// The event feed's GraphQL types (SPEC §10).
import { builder } from '../builder.js';
import { feedEventOutput } from '../../server/application/events/events.js';
import { describedBy, pageDescription, pageFields } from '../described.js';
import { TensionEventTypeEnum } from '../enums.js';
import type { FeedEventView, FeedPageView, FollowedEvent } from '../../server/application/events/events.js';

export const FeedEventType = builder.objectRef<FeedEventView>('FeedEvent').implement({
  description: 'One event of the feed (metadata without apiKeyId).',
  fields: (t) =>
    describedBy(feedEventOutput, {
      position: t.float({ description: 'global and increasing; gaps allowed', resolve: (e) => e.position }),
      id: t.exposeID('id'),
      streamType: t.exposeString('streamType'),
      streamId: t.exposeID('streamId'),
      version: t.exposeInt('version'),
      type: t.field({ type: TensionEventTypeEnum, resolve: (e) => e.type }),
      schemaVersion: t.exposeInt('schemaVersion'),
      data: t.field({ type: 'JSON', resolve: (e) => e.data }),
      metadata: t.field({ type: 'JSON', resolve: (e) => e.metadata }),
      occurredAt: t.field({ type: 'DateTime', resolve: (e) => e.occurredAt }),
    }),
});

export const FeedPageType = builder.objectRef<FeedPageView>('FeedPage').implement({
  description: pageDescription('Feed'),
  fields: (t) =>
    pageFields({
      data: t.field({ type: [FeedEventType], resolve: (p) => p.data }),
      nextCursor: t.exposeString('nextCursor', { description: 'always present: where to resume (also when data is empty)' }),
    }),
});

export const FollowedEventType = builder.objectRef<FollowedEvent>('TensionFeedEvent').implement({
  description: 'An event as a subscription delivers it, with the cursor after it (resume with `after: cursor`).',
  fields: (t) => ({
    cursor: t.exposeString('cursor', { description: 'The feed cursor after this event: resume with `after: cursor`.' }),
    event: t.field({ type: FeedEventType, description: 'The event.', resolve: (f) => f.event }),
  }),
});
