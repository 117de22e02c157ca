import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const UserEntity = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.uuid().primary(),
    type: p.enum(['human', 'agent'] as const),
    email: p.text(),
    name: p.text(),
    passwordHash: p.text().nullable().hidden().lazy(),
    status: p.enum(['active', 'deactivated'] as const),
    // Scalar FK (ON DELETE SET NULL in the migration): the link is informational.
    linkedActorId: p.uuid().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type User = InferEntity<typeof UserEntity>;
