import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ActorEntity = defineEntity({
  name: 'Actor',
  tableName: 'actors',
  properties: {
    id: p.uuid().primary(),
    name: p.text(),
    type: p.enum(['organization', 'individual', 'virtual', 'agent'] as const),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Actor = InferEntity<typeof ActorEntity>;
