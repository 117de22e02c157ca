import { builder } from '../builder.js';
import { meOutput } from '../../server/application/auth/auth.js';
import { describedBy } from '../described.js';
import { AuthenticatedByEnum } from '../enums.js';
import type { MeView } from '../../server/application/auth/auth.js';
import { ApiKeyRef, UserRef } from '../users/users.type.js';
import { RoleRef } from '../roles/roles.type.js';

export const MeRef = builder.objectRef<MeView>('Me').implement({
  description: 'The caller: its user, roles, effective permissions and how it authenticated.',
  fields: (t) =>
    describedBy(meOutput, {
      user: t.field({ type: UserRef, resolve: (m) => m.user }),
      roles: t.field({ type: [RoleRef], resolve: (m) => m.roles }),
      permissions: t.exposeStringList('permissions'),
      authenticatedBy: t.expose('authenticatedBy', { type: AuthenticatedByEnum }),
      apiKey: t.field({ type: ApiKeyRef, nullable: true, resolve: (m) => m.apiKey }),
    }),
});
