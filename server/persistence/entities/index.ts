import { ActorEntity } from './actor.entity.js';
import { ApiKeyEntity } from './api-key.entity.js';
import { DomainEventEntity } from './domain-event.entity.js';
import { RoleEntity, RoleInheritanceEntity, UserRoleEntity } from './role.entity.js';
import { SessionEntity } from './session.entity.js';
import { TensionEntity } from './tension.entity.js';
import { UserEntity } from './user.entity.js';

export * from './actor.entity.js';
export * from './api-key.entity.js';
export * from './domain-event.entity.js';
export * from './role.entity.js';
export * from './session.entity.js';
export * from './tension.entity.js';
export * from './user.entity.js';

export const entities = [
  ActorEntity, UserEntity, RoleEntity, RoleInheritanceEntity, UserRoleEntity,
  ApiKeyEntity, SessionEntity, TensionEntity, DomainEventEntity,
];
