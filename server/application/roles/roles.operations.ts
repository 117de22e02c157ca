// The roles area's operations: hierarchical roles and the permission catalogue. Every face is generated
// from these entries (server/application/operations.ts).
//
// MCP: none. A role edit acts on everyone holding the role (SPEC §6), the widest escalation surface there
// is; reading roles helps no tension work (an agent learns its own rights from whoami).
import { z } from 'zod';
import { pageOutput } from '../paging.js';
import { defineOperation, NOT_FOR_AGENTS, type OperationEntry } from '../operations.js';
import {
  countRoles,
  countRolesInput,
  createRole,
  createRoleInput,
  deleteRole,
  getRole,
  listPermissions,
  listRoles,
  listRolesInput,
  updateRole,
  updateRoleInput,
} from './roles.js';
import { listTotalOutput } from '../list-total.js';
import { roleOutput } from './role.read.js';

export const rolePageOutput = pageOutput(roleOutput, 'roles');
export const permissionListOutput = z.object({
  data: z.array(z.string()).describe('Every permission a role can grant (`tensions:read`, …), and `*` for all.'),
});

export const ROLE_OPERATIONS: OperationEntry[] = [
  defineOperation({
    operation: 'permissions.list',
    run: (deps, ctx) => listPermissions(deps, ctx),
    output: permissionListOutput,
    rest: {
      method: 'get',
      path: '/permissions',
      status: 200,
      tag: 'roles',
      input: 'none',
      summary: 'The permission catalogue',
      description: 'Every permission a role can grant.',
      answer: (permissions) => ({ data: permissions }),
    },
    graphql: { kind: 'query', field: 'permissions', type: '[String]', args: 'none' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityRead },
  }),
  defineOperation({
    operation: 'roles.list',
    run: (deps, ctx, _p, input) => listRoles(deps, ctx, input),
    input: listRolesInput,
    output: rolePageOutput,
    rest: {
      method: 'get',
      path: '/roles',
      status: 200,
      tag: 'roles',
      input: 'query',
      summary: 'List roles (q finds by name or code)',
      description: 'Roles, a page at a time, each with its own and its effective (inherited) permissions.',
    },
    graphql: { kind: 'query', field: 'roles', type: 'RolePage', args: 'flat' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityRead },
  }),
  defineOperation({
    operation: 'roles.count',
    run: (deps, ctx, _p, input) => countRoles(deps, ctx, input),
    input: countRolesInput,
    output: listTotalOutput,
    // GraphQL only: the REST facade keeps exactly the contract's paths (SPEC §5), which have no count
    rest: null,
    graphql: {
      kind: 'query',
      field: 'rolesTotal',
      type: 'ListTotal',
      args: 'flat',
      description:
        'How many roles the same search as the roles list matches: exact up to 10,000, past it 10,000 with exact false. Counted with a bound, never over every row.',
    },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityRead },
  }),
  defineOperation({
    operation: 'roles.create',
    run: (deps, ctx, _p, input) => createRole(deps, ctx, input),
    input: createRoleInput,
    output: roleOutput,
    errors: ['escalation_denied', 'role_cycle'],
    audit: ['role.created'],
    rest: {
      method: 'post',
      path: '/roles',
      status: 201,
      tag: 'roles',
      input: 'body',
      bodyRequired: true,
      summary: 'Create a role (permissions you hold yourself, optionally inheriting other roles)',
      description:
        'Creates a role granting permissions you hold yourself, optionally inheriting other roles. A duplicate code is 409 code_taken; an inheritance loop 409 role_cycle.',
    },
    graphql: { kind: 'mutation', field: 'createRole', type: 'Role', args: 'input', inputType: 'CreateRoleInput' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityWrite },
    example: { code: 'sweep-role', name: 'Sweep role', permissions: [] },
    graphqlExample: { code: 'sweep-role-gql', name: 'Sweep role', permissions: [] },
  }),
  defineOperation({
    operation: 'roles.get',
    run: (deps, ctx, p) => getRole(deps, ctx, p.id),
    output: roleOutput,
    rest: {
      method: 'get',
      path: '/roles/:id',
      status: 200,
      tag: 'roles',
      input: 'none',
      summary: 'Get a role',
      description: 'One role with its own and effective permissions.',
    },
    graphql: { kind: 'query', field: 'role', type: 'Role', nullable: true, args: 'none' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityRead },
  }),
  defineOperation({
    operation: 'roles.update',
    run: (deps, ctx, p, input) => updateRole(deps, ctx, p.id, input),
    input: updateRoleInput,
    output: roleOutput,
    errors: ['system_role', 'role_cycle', 'last_admin', 'escalation_denied', 'version_conflict'],
    audit: ['role.updated'],
    rest: {
      method: 'patch',
      path: '/roles/:id',
      status: 200,
      tag: 'roles',
      input: 'body',
      bodyRequired: true,
      summary: 'Update a role (not the permissions of a system role)',
      description:
        "Changes a role's code, name, permissions or inherited roles. A system role's permissions cannot change. The edit acts on everyone holding the role or a role inheriting it: the caller must hold every effective permission of those roles before and after the change, a rename too (403 escalation_denied otherwise). With `expectedVersion`, writes only if the role is still at that version (409 version_conflict otherwise).",
    },
    graphql: { kind: 'mutation', field: 'updateRole', type: 'Role', args: 'input', inputType: 'UpdateRoleInput' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityWrite },
    example: { name: 'Renamed role' },
  }),
  defineOperation({
    operation: 'roles.delete',
    run: (deps, ctx, p) => deleteRole(deps, ctx, p.id),
    errors: ['escalation_denied', 'system_role', 'role_in_use'],
    audit: ['role.deleted'],
    rest: {
      method: 'delete',
      path: '/roles/:id',
      status: 204,
      tag: 'roles',
      input: 'none',
      summary: 'Delete a role that no user holds and no role inherits',
      description:
        'Deletes a role that no user holds and no role inherits (409 role_in_use otherwise); system roles stay. The caller must hold every effective permission the role carries (403 escalation_denied otherwise).',
    },
    graphql: { kind: 'mutation', field: 'deleteRole', type: 'Boolean', args: 'none' },
    mcp: { exposed: false, why: NOT_FOR_AGENTS.identityWrite },
  }),
];
