import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Server-side half of a login: the JWT names it, revoking it ends the session on every instance. */
export const SessionEntity = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: p.uuid().primary(),
    userId: p.uuid(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
  },
});
export type Session = InferEntity<typeof SessionEntity>;
