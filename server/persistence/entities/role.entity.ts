import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const RoleEntity = defineEntity({
  name: 'Role',
  tableName: 'roles',
  properties: {
    id: p.uuid().primary(),
    code: p.text(),
    name: p.text(),
    permissions: p.array(),
    system: p.boolean(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Role = InferEntity<typeof RoleEntity>;

/** Edge of the role inheritance DAG: `roleId` inherits everything `inheritedRoleId` grants. */
export const RoleInheritanceEntity = defineEntity({
  name: 'RoleInheritance',
  tableName: 'role_inherits',
  properties: {
    roleId: p.uuid().primary(),
    inheritedRoleId: p.uuid().primary(),
  },
});
export type RoleInheritance = InferEntity<typeof RoleInheritanceEntity>;

export const UserRoleEntity = defineEntity({
  name: 'UserRole',
  tableName: 'user_roles',
  properties: {
    userId: p.uuid().primary(),
    roleId: p.uuid().primary(),
  },
});
export type UserRole = InferEntity<typeof UserRoleEntity>;
