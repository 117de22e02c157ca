import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ApiKeyEntity = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.uuid().primary(),
    userId: p.uuid(),
    name: p.text(),
    prefix: p.text(),
    /** SHA-256 of the whole key, hex. The plaintext is never stored. */
    keyHash: p.text().hidden(),
    createdAt: p.datetime(),
    lastUsedAt: p.datetime().nullable(),
    expiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKeyEntity>;
