// GraphQL types of the actors area.
import { builder } from '../builder.js';
import { actorOutput } from '../../server/application/actors/actor.inputs.js';
import { describedBy, pageDescription, pageFields } from '../described.js';
import { ActorTypeEnum } from '../enums.js';
import type { ActorView } from '../../server/application/actors/index.js';

export const ActorType = builder.objectRef<ActorView>('Actor').implement({
  description: 'A market participant; tensions belong to actors.',
  fields: (t) =>
    describedBy(actorOutput, {
      id: t.exposeID('id'),
      name: t.exposeString('name'),
      type: t.expose('type', { type: ActorTypeEnum }),
      createdAt: t.field({ type: 'DateTime', resolve: (x) => x.createdAt }),
      updatedAt: t.field({ type: 'DateTime', resolve: (x) => x.updatedAt }),
      tensionCount: t.exposeInt('tensionCount', { description: 'how many (not discarded) tensions the actor has' }),
      version: t.exposeInt('version', { description: '1 on creation, +1 on every change; send it back as expectedVersion' }),
    }),
});

export const ActorPageType = builder.objectRef<{ data: ActorView[]; nextCursor: string | null }>('ActorPage').implement({
  description: pageDescription('Actor'),
  fields: (t) =>
    pageFields({
      data: t.field({ type: [ActorType], resolve: (x) => x.data }),
      nextCursor: t.exposeString('nextCursor', { nullable: true }),
    }),
});
