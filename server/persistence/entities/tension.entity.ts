import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** The projection of tension streams; written only by the event-sourced command path and the rebuild. */
export const TensionEntity = defineEntity({
  name: 'Tension',
  tableName: 'tensions',
  properties: {
    id: p.uuid().primary(),
    name: p.text(),
    currentContext: p.text().nullable(),
    potentialFuture: p.text().nullable(),
    score: p.smallint(),
    state: p.enum(['alive', 'resolved', 'stale'] as const),
    actorId: p.uuid(),
    leadUserId: p.uuid().nullable(),
    version: p.integer(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Tension = InferEntity<typeof TensionEntity>;
