import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * Append-only (a trigger refuses updates and deletes). `position` comes from a sequence (gaps allowed);
 * the global order is (`transactionId`, `position`), read through `readAll` in event-store.ts.
 */
export const DomainEventEntity = defineEntity({
  name: 'DomainEvent',
  tableName: 'domain_events',
  properties: {
    position: p.bigint('number').primary().defaultRaw(`nextval('domain_events_position_seq')`),
    id: p.uuid(),
    streamType: p.text(),
    streamId: p.uuid(),
    version: p.integer(),
    type: p.text(),
    schemaVersion: p.integer(),
    data: p.json<Record<string, unknown>>(),
    metadata: p.json<Record<string, unknown>>(),
    occurredAt: p.datetime(),
    /** the writing transaction's id (xid8, as decimal text); 0 for events from before the sequence */
    transactionId: p.string().columnType('xid8').defaultRaw('pg_current_xact_id()'),
  },
});
export type DomainEvent = InferEntity<typeof DomainEventEntity>;
