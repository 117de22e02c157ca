// Descriptions are written once, on the zod schemas of the use cases (`.describe()`), and shown by every
// face: the OpenAPI document and the MCP tools read them directly; here the built GraphQL schema takes
// them for every field and argument that has no GraphQL-specific description of its own.
import { getNamedType, isInputObjectType, isObjectType, type GraphQLArgument, type GraphQLField, type GraphQLInputField, type GraphQLSchema } from 'graphql';
import type { z } from 'zod';
import { describedAs, shapeOf } from './described.js';
import { historyEntryOutput, historyQuery, listTensionsQuery, rebuildReportOutput, tensionOutput } from '../server/application/tensions/tension.inputs.js';
import { actorOutput, createActorInput, listActorsQuery, updateActorInput } from '../server/application/actors/actor.inputs.js';
import { userOutput } from '../server/application/users/user.read.js';
import { createUserInput, listUsersInput, updateUserInput } from '../server/application/users/users.js';
import { apiKeyOutput, createApiKeyInput, createdApiKeyOutput, listApiKeysInput } from '../server/application/users/api-keys.js';
import { roleOutput } from '../server/application/roles/role.read.js';
import { createRoleInput, listRolesInput, updateRoleInput } from '../server/application/roles/roles.js';
import { changePasswordInput, loginInput, meOutput } from '../server/application/auth/auth.js';
import { feedEventOutput, listEventsQuery } from '../server/application/events/events.js';
import { auditEntryOutput, listAuditQuery } from '../server/application/audit/audit.js';
import {
  createWebhookInput,
  deliveryOutput,
  listDeliveriesInput,
  listWebhooksInput,
  replayOutput,
  updateWebhookInput,
  webhookOutput,
} from '../server/application/webhooks/operations.js';
import { REST_ROUTE_DOCS } from '../server/rest/openapi.routes.js';

/** A GraphQL object or input type, or a `Type.field` whose arguments, and the zod object that describes its members. */
const DESCRIBED_BY: Record<string, z.ZodType> = {
  'Query.auditLog': listAuditQuery,
  CreateActorInput: createActorInput,
  UpdateActorInput: updateActorInput,
  CreateUserInput: createUserInput,
  UpdateUserInput: updateUserInput,
  CreateApiKeyInput: createApiKeyInput,
  CreateRoleInput: createRoleInput,
  UpdateRoleInput: updateRoleInput,
  'Query.tensions': listTensionsQuery,
  'Query.tensionHistory': historyQuery,
  'Query.actors': listActorsQuery,
  'Query.users': listUsersInput,
  'Query.roles': listRolesInput,
  'Query.userApiKeys': listApiKeysInput,
  'Query.myApiKeys': listApiKeysInput,
  'Query.events': listEventsQuery,
  'Subscription.tensionEvents': listEventsQuery,
  CreateWebhookInput: createWebhookInput,
  UpdateWebhookInput: updateWebhookInput,
  'Query.webhooks': listWebhooksInput,
  'Query.webhookDeliveries': listDeliveriesInput,
  LoginInput: loginInput,
  ChangePasswordInput: changePasswordInput,
};

/**
 * The zod schema of one argument of a field (`Query.events`, `limit`), as the use case parses it: the
 * GraphQL list budget (server/graphql/list-budget.ts) reads each list's default and maximum `limit` here.
 */
export function argumentSchema(coordinate: string, argument: string): z.ZodType | undefined {
  const by = DESCRIBED_BY[coordinate];
  return by ? shapeOf(by)[argument] : undefined;
}

function fill(members: readonly (GraphQLField<unknown, unknown> | GraphQLInputField | GraphQLArgument)[], by: z.ZodType | undefined) {
  if (!by) return;
  const shape = shapeOf(by);
  for (const member of members) {
    if (member.description) continue;
    const text = describedAs(shape[member.name]);
    if (text) member.description = text;
  }
}

/** A root field's description: the REST operation's of the same permission-table operation, so both faces say the same. */
function operationDescription(field: GraphQLField<unknown, unknown>): string | undefined {
  const op = (field.extensions as { pothosOptions?: { authScopes?: { operation?: string } } }).pothosOptions?.authScopes?.operation;
  const doc = op ? (REST_ROUTE_DOCS.find((r) => r.operation === op && r.method !== 'get') ?? REST_ROUTE_DOCS.find((r) => r.operation === op)) : undefined;
  return doc ? ((doc as { description?: string }).description ?? doc.summary) : undefined;
}

const ID_ARG: Record<string, string> = {
  id: 'The id (a UUID) of the object the field acts on; an id that is not a UUID is not found.',
  userId: 'The user id (a UUID).',
  keyId: 'The API key id (a UUID).',
  input: 'The fields of the change, as the REST body of the same operation takes them.',
};

/** Conventional members every area shares: page envelopes, ids, inputs, the root types. */
function fillConventions(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        for (const arg of field.args) arg.description ??= ID_ARG[arg.name];
        for (const arg of field.args) {
          const argType = getNamedType(arg.type);
          if (isInputObjectType(argType)) argType.description ??= `The input of \`${field.name}\`.`;
        }
      }
    }
  }
}

/** Fills, in place, the descriptions the zod schemas hold and the GraphQL definitions left out. */
export function describeFromZod(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (isObjectType(type)) {
      const fields = Object.values(type.getFields());
      fill(fields, DESCRIBED_BY[type.name]);
      if (type === schema.getQueryType() || type === schema.getMutationType() || type === schema.getSubscriptionType()) {
        for (const field of fields) field.description ??= operationDescription(field);
      }
      for (const field of fields) fill(field.args, DESCRIBED_BY[`${type.name}.${field.name}`]);
    } else if (isInputObjectType(type)) {
      fill(Object.values(type.getFields()), DESCRIBED_BY[type.name]);
    }
  }
  fillConventions(schema);
  return schema;
}
