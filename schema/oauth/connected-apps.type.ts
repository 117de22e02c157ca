// Connected apps (SPEC §13): the answer types of the connected-apps operations; their fields are generated
// from the registry (schema/operations.ts), their descriptions from connectedAppListOutput (describedBy).
import { builder } from '../builder.js';
import { connectedAppListOutput, type ConnectedApp } from '../../server/application/oauth/connected-apps.js';
import { describedBy } from '../described.js';

const appOutput = connectedAppListOutput.shape.data.element;

const ConnectedAppClientRef = builder.objectRef<ConnectedApp['client']>('ConnectedAppClient').implement({
  description: 'The AI client a grant was given to.',
  fields: (t) => describedBy(appOutput.shape.client, { id: t.exposeString('id'), name: t.exposeString('name'), verified: t.exposeBoolean('verified') }),
});

export const ConnectedAppRef = builder.objectRef<ConnectedApp>('ConnectedApp').implement({
  description: 'One connected app: an OAuth grant a person gave an AI client for /mcp.',
  fields: (t) =>
    describedBy(appOutput, {
      id: t.exposeID('id'),
      client: t.field({ type: ConnectedAppClientRef, resolve: (a) => a.client }),
      scopes: t.exposeStringList('scopes'),
      createdAt: t.field({ type: 'DateTime', resolve: (a) => a.createdAt }),
      lastUsedAt: t.field({ type: 'DateTime', nullable: true, resolve: (a) => a.lastUsedAt }),
    }),
});

export const ConnectedAppListRef = builder.objectRef<{ data: ConnectedApp[] }>('ConnectedAppList').implement({
  description: 'The AI clients a person connected by OAuth, newest first (at most 100).',
  fields: (t) => describedBy(connectedAppListOutput, { data: t.field({ type: [ConnectedAppRef], resolve: (l) => l.data }) }),
});
