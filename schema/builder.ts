// The Pothos builder: plugins and scalars only; types live in one file each under their area.
import SchemaBuilder from '@pothos/core';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { hasPermission, type Permission } from '../server/domain/permissions.js';
import { OPERATION_PERMISSIONS, type Operation } from '../server/application/permission-table.js';
import { callerGrants, mayPerform, MFA_ENROLMENT_REQUIRED } from '../server/application/authorize.js';
import { graphqlError, toGraphQLError } from './errors.js';
import type { GraphQLContext } from './context.js';

type Failure = { scope?: string; parameter?: unknown; failures?: Failure[] };

/** The permission a scope failure names (scopes may be nested in any/all groups). */
function neededPermission(failure: Failure): string | undefined {
  if (failure.scope === 'operation') return OPERATION_PERMISSIONS[failure.parameter as Operation] ?? undefined;
  if (failure.scope === 'permission') return failure.parameter as string;
  for (const f of failure.failures ?? []) {
    const found = neededPermission(f);
    if (found) return found;
  }
  return undefined;
}

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  AuthScopes: { authenticated: boolean; permission: Permission; operation: Operation };
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  defaultFieldNullability: false,
  plugins: [ScopeAuthPlugin],
  scopeAuth: {
    authScopes: (context) => ({
      authenticated: context.caller !== null,
      permission: (p) => context.caller !== null && hasPermission(callerGrants(context.caller), p),
      // the same check the application layer enforces
      operation: (op) => context.caller !== null && mayPerform(context.caller, op),
    }),
    unauthorizedError: (_parent, context, info, result) => {
      if (!context.caller) {
        return graphqlError('UNAUTHENTICATED', 'Authentication required: send a session cookie, or an Authorization header with Bearer and an API key.');
      }
      if (context.caller.mfaEnrolmentRequired) return toGraphQLError(MFA_ENROLMENT_REQUIRED());
      // Same members as REST's problem document (docs/graphql.md): name the missing permission.
      const missingPermission = neededPermission(result.failure as Failure);
      return graphqlError('FORBIDDEN', `Not allowed to use ${info.parentType.name}.${info.fieldName}.`, {
        status: 403,
        ...(missingPermission ? { missingPermission } : {}),
      });
    },
  },
});

builder.scalarType('DateTime', {
  description: 'An ISO-8601 timestamp in UTC',
  serialize: (value) => (value instanceof Date ? value.toISOString() : new Date(value).toISOString()),
  parseValue: (value) => {
    const d = typeof value === 'string' ? new Date(value) : new Date(NaN);
    if (Number.isNaN(d.getTime())) throw graphqlError('VALIDATION_FAILED', 'DateTime must be an ISO-8601 string');
    return d;
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value',
  serialize: (value) => value,
  parseValue: (value) => value,
});

builder.queryType({
  description:
    'Reads. Each field needs the permission its description names; a single-object lookup answers null (with a NOT_FOUND error for that field only) when the id is unknown.',
});
builder.mutationType({
  description: 'Writes, each one application command in one transaction. Refusals are errors with the REST code upper-cased in `extensions.code`.',
});
