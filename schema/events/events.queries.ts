// The event feed's `subscription { tensionEvents }` (GraphQL over SSE): a stream, so written by hand. Its pages,
// the `events` query, come from the operation registry (server/application/events/events.operations.ts).
import { builder } from '../builder.js';
import { listEventsQuery } from '../../server/application/events/events.js';
import { describedArgs } from '../described.js';
import { TensionEventTypeEnum } from '../enums.js';
import { gqlCtx, HTTP_EXCHANGE, httpExchange } from '../context.js';
import { toGraphQLError, unwrap } from '../errors.js';
import { refuse } from '../../server/domain/errors.js';
import { withoutNulls } from '../args.js';
import { followEvents } from '../../server/application/events/events.js';
import { FollowedEventType } from './events.type.js';

builder.subscriptionType({ description: 'Live updates over Server-Sent Events (GraphQL over SSE), served by the same endpoint.' });
builder.subscriptionFields((t) => ({
  tensionEvents: t.field({
    ...HTTP_EXCHANGE,
    type: FollowedEventType,
    authScopes: { operation: 'events.list' },
    description:
      'Every event after `after` (absent: the start; "now": only new ones) as it commits, in feed order. Served over SSE. Needs events:read and tensions:read; ends when the caller loses either, or its credential (SPEC §10).',
    args: describedArgs({ after: t.arg.string(), types: t.arg({ type: [TensionEventTypeEnum] }), streamId: t.arg.id() }, listEventsQuery),
    // scope auth guards `resolve`; the stream opens in `subscribe`, so it checks the caller itself (the use case the permission)
    subscribe: async (_root, args, context) => {
      if (!context.caller)
        throw unwrap(refuse('unauthenticated', 'Authentication required: send a session cookie, or an Authorization header with Bearer and an API key.'));
      const { res } = httpExchange(context);
      const closed = new AbortController();
      // the response's own close (per request, so a keep-alive socket gathers no listeners)
      res.once('close', () => closed.abort());
      const transport = {
        buffered: () => res.writableLength,
        destroy: () => res.destroy(),
        closed: closed.signal,
      };
      const result = await followEvents(context.deps, gqlCtx(context), withoutNulls(args), transport);
      if (!result.ok && result.code === 'rate_limited' && !res.headersSent)
        res.setHeader('Retry-After', String(Number(result.extensions?.retryAfterSeconds ?? 1)));
      return unwrap(result);
    },
    // a stream that lost its caller's rights ends with the refusal a new request would get (SPEC §10)
    resolve: (item) => {
      if ('endedBy' in item) throw toGraphQLError(item.endedBy);
      return item;
    },
  }),
}));
