import { builder } from '../builder.js';
import { roleOutput } from '../../server/application/roles/role.read.js';
import { describedBy, pageDescription, pageFields } from '../described.js';
import type { RoleView } from '../../server/application/roles/role.read.js';
import type { Page } from '../../server/application/paging.js';

export const RoleRef = builder.objectRef<RoleView>('Role').implement({
  description: 'A role: its own permissions plus those of every role it inherits, transitively.',
  fields: (t) =>
    describedBy(roleOutput, {
      id: t.exposeID('id'),
      code: t.exposeString('code'),
      name: t.exposeString('name'),
      permissions: t.exposeStringList('permissions'),
      inherits: t.exposeIDList('inherits'),
      system: t.exposeBoolean('system'),
      effectivePermissions: t.exposeStringList('effectivePermissions'),
      version: t.exposeInt('version', { description: '1 on creation, +1 on every change; send it back as expectedVersion' }),
    }),
});

export const RolePageRef = builder.objectRef<Page<RoleView>>('RolePage').implement({
  description: pageDescription('Role'),
  fields: (t) =>
    pageFields({
      data: t.field({ type: [RoleRef], resolve: (p) => p.data }),
      nextCursor: t.exposeString('nextCursor', { nullable: true }),
    }),
});
