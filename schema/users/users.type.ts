import { builder } from '../builder.js';
import { userOutput } from '../../server/application/users/user.read.js';
import { apiKeyHitOutput, apiKeyHitsOutput, apiKeyOutput, createdApiKeyOutput } from '../../server/application/users/api-keys.js';
import { describedBy, pageDescription, pageFields } from '../described.js';
import { ActorTypeEnum, UserStatusEnum, UserTypeEnum } from '../enums.js';
import type { UserView } from '../../server/application/users/user.read.js';
import type { ApiKeyHit, ApiKeyMetadata, CreatedApiKey } from '../../server/application/users/api-keys.js';
import type { Page } from '../../server/application/paging.js';
import { RoleRef } from '../roles/roles.type.js';

const LinkedActorRef = builder.objectRef<NonNullable<UserView['linkedActor']>>('LinkedActor').implement({
  description: 'The actor an agent user is linked to (informational).',
  fields: (t) =>
    describedBy(userOutput.shape.linkedActor, {
      id: t.exposeID('id'),
      name: t.exposeString('name'),
      type: t.field({ type: ActorTypeEnum, resolve: (a) => a.type }),
    }),
});

export const UserRef = builder.objectRef<UserView>('User').implement({
  description: 'An identity that operates the software: a human (password) or an agent (API keys).',
  fields: (t) =>
    describedBy(userOutput, {
      id: t.exposeID('id'),
      type: t.expose('type', { type: UserTypeEnum }),
      email: t.exposeString('email'),
      name: t.exposeString('name'),
      status: t.expose('status', { type: UserStatusEnum }),
      linkedActorId: t.exposeID('linkedActorId', { nullable: true }),
      linkedActor: t.field({ type: LinkedActorRef, nullable: true, resolve: (u) => u.linkedActor }),
      roles: t.field({ type: [RoleRef], resolve: (u) => u.roles }),
      version: t.exposeInt('version', { description: '1 on creation, +1 on every change; send it back as expectedVersion' }),
      createdAt: t.field({ type: 'DateTime', resolve: (u) => u.createdAt }),
      updatedAt: t.field({ type: 'DateTime', resolve: (u) => u.updatedAt }),
    }),
});

export const UserPageRef = builder.objectRef<Page<UserView>>('UserPage').implement({
  description: pageDescription('User'),
  fields: (t) =>
    pageFields({
      data: t.field({ type: [UserRef], resolve: (p) => p.data }),
      nextCursor: t.exposeString('nextCursor', { nullable: true }),
    }),
});

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The metadata fields, shared by a key's listing and its one-time creation answer. */
function apiKeyFields<K extends ApiKeyMetadata>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, K>) {
  return {
    id: t.id({ resolve: (k) => k.id }),
    name: t.string({ resolve: (k) => k.name }),
    prefix: t.string({ resolve: (k) => k.prefix }),
    permissions: t.stringList({
      nullable: true,
      description: "null: all of the user's permissions; otherwise a request with this key carries the user's ∩ these",
      resolve: (k) => k.permissions,
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (k) => k.createdAt }),
    lastUsedAt: t.field({ type: 'DateTime', nullable: true, resolve: (k) => k.lastUsedAt }),
    expiresAt: t.field({ type: 'DateTime', nullable: true, resolve: (k) => k.expiresAt }),
    revokedAt: t.field({ type: 'DateTime', nullable: true, resolve: (k) => k.revokedAt }),
    rotatedFromId: t.id({ nullable: true, description: 'the key this one replaced by rotation', resolve: (k) => k.rotatedFromId }),
  };
}

export const ApiKeyRef = builder.objectRef<ApiKeyMetadata>('ApiKey').implement({
  description: 'API key metadata: never the key or its hash.',
  fields: (t) => describedBy(apiKeyOutput, apiKeyFields(t)),
});

export const CreatedApiKeyRef = builder.objectRef<CreatedApiKey>('CreatedApiKey').implement({
  description: 'A new key: the metadata plus the plaintext `key`, shown exactly once.',
  fields: (t) =>
    describedBy(createdApiKeyOutput, {
      ...apiKeyFields(t),
      // null only on an idempotent replay (SPEC §12): the secret is never kept for one
      key: t.exposeString('key', {
        nullable: true,
        description: 'The plaintext key, shown exactly once; null on an idempotent replay, which never returns the secret.',
      }),
    }),
});

export const ApiKeyPageRef = builder.objectRef<Page<ApiKeyMetadata>>('ApiKeyPage').implement({
  description: pageDescription('ApiKey'),
  fields: (t) =>
    pageFields({
      data: t.field({ type: [ApiKeyRef], resolve: (p) => p.data }),
      nextCursor: t.exposeString('nextCursor', { nullable: true }),
    }),
});

const ApiKeyOwnerRef = builder.objectRef<ApiKeyHit['user']>('ApiKeyOwner').implement({
  description: 'The user whose key it is.',
  fields: (t) =>
    describedBy(apiKeyHitOutput.shape.user, {
      id: t.exposeID('id'),
      name: t.exposeString('name'),
      type: t.expose('type', { type: UserTypeEnum }),
    }),
});

export const ApiKeyHitRef = builder.objectRef<ApiKeyHit>('ApiKeyHit').implement({
  description: 'A key found by the search: its metadata (never the key or its hash) and whose it is.',
  fields: (t) => describedBy(apiKeyHitOutput, { ...apiKeyFields(t), user: t.field({ type: ApiKeyOwnerRef, resolve: (k) => k.user }) }),
});

export const ApiKeyHitListRef = builder.objectRef<{ data: ApiKeyHit[] }>('ApiKeyHitList').implement({
  description: 'Keys found: live keys first, then newest first.',
  fields: (t) => describedBy(apiKeyHitsOutput, { data: t.field({ type: [ApiKeyHitRef], resolve: (p) => p.data }) }),
});
