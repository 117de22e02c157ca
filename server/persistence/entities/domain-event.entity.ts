import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Append-only (a trigger refuses updates and deletes); `position` is gap-free in commit order. */
export const DomainEventEntity = defineEntity({
  name: 'DomainEvent',
  tableName: 'domain_events',
  properties: {
    position: p.bigint('number').primary(),
    id: p.uuid(),
    streamType: p.text(),
    streamId: p.uuid(),
    version: p.integer(),
    type: p.text(),
    schemaVersion: p.integer(),
    data: p.json<Record<string, unknown>>(),
    metadata: p.json<Record<string, unknown>>(),
    occurredAt: p.datetime(),
  },
});
export type DomainEvent = InferEntity<typeof DomainEventEntity>;
