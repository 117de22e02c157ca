// GraphQL from the operation registry (server/application/operations.ts): one query or mutation field per
// entry with a `graphql` face. Its arguments are the path parameters (`id: ID!`, GraphQL's name when it has
// its own) and the input — one `input` object generated from the zod schema (zodInputType), or each field
// its own argument (`flat`); every mutation takes `idempotencyKey` and runs once per key (SPEC §12).
import { builder } from './builder.js';
import { gqlCtx, type GraphQLContext } from './context.js';
import { unwrap } from './errors.js';
import { done, idempotencyKeyArg, idempotentMutation } from './idempotency.js';
import { ARG_DESCRIPTIONS, argDescription, inputDescription, listLimit, operationDescription, shapeOf } from './described.js';
import { graphqlField, inputJsonOf, zodInputType, type JsonSchema } from './zod-input.js';
import { entryPathParams, inputOptional, type OperationEntry } from '../server/application/operations.js';
import { OPERATIONS } from '../server/application/registry.js';
import type { Result } from '../server/domain/errors.js';
import { ApiKeyHitListRef, ApiKeyPageRef, ApiKeyRef, CreatedApiKeyRef, UserPageRef, UserRef } from './users/users.type.js';
import { RolePageRef, RoleRef } from './roles/roles.type.js';
import { MeRef } from './auth/auth.type.js';
import { MfaEnrolmentRef, MfaStatusRef, RecoveryCodesRef } from './auth/second-factor.js';
import { ActorPageType, ActorType } from './actors/actor.type.js';
import { ConnectedAppListRef } from './oauth/connected-apps.type.js';
import { WebhookDeliveryPageRef, WebhookDeliveryRef, WebhookPageRef, WebhookRef, WebhookReplayRef, WebhookWithSecretRef } from './webhooks/webhooks.type.js';
import { AuditEntryPageType, AuditVocabularyType } from './audit/audit.type.js';
import { FeedPageType } from './events/events.type.js';
import { ListTotalType } from './tensions/tension.type.js';

/** The GraphQL answer types an entry may name (`graphql.type`); a new object type is one line here. */
const OUTPUT_TYPES = {
  User: UserRef,
  UserPage: UserPageRef,
  ApiKey: ApiKeyRef,
  ApiKeyPage: ApiKeyPageRef,
  ApiKeyHitList: ApiKeyHitListRef,
  CreatedApiKey: CreatedApiKeyRef,
  Role: RoleRef,
  RolePage: RolePageRef,
  Me: MeRef,
  MfaStatus: MfaStatusRef,
  MfaEnrolment: MfaEnrolmentRef,
  RecoveryCodes: RecoveryCodesRef,
  Actor: ActorType,
  ActorPage: ActorPageType,
  ConnectedAppList: ConnectedAppListRef,
  Webhook: WebhookRef,
  WebhookPage: WebhookPageRef,
  WebhookWithSecret: WebhookWithSecretRef,
  WebhookDelivery: WebhookDeliveryRef,
  WebhookDeliveryPage: WebhookDeliveryPageRef,
  WebhookReplay: WebhookReplayRef,
  AuditEntryPage: AuditEntryPageType,
  AuditVocabulary: AuditVocabularyType,
  FeedPage: FeedPageType,
  ListTotal: ListTotalType,
  Boolean: 'Boolean',
  '[String]': ['String'],
} as const;

function outputType(entry: OperationEntry) {
  const name = entry.graphql!.type;
  if (!Object.hasOwn(OUTPUT_TYPES, name)) throw new Error(`GraphQL: ${entry.operation} answers ${name}; name its type in schema/operations.ts`);
  return OUTPUT_TYPES[name as keyof typeof OUTPUT_TYPES];
}

/**
 * GraphQL clients send an explicit null for a left-out optional field. A null the zod schema does not admit
 * means "absent" (a patch leaves that field alone, a list filter is off); a null it admits is kept
 * (`linkedActorId: null` unlinks).
 */
function nullsAsAbsent(value: Record<string, unknown>, json: JsonSchema): Record<string, unknown> {
  const admitsNull = (p: JsonSchema | undefined) =>
    !!p && (p.type === 'null' || (Array.isArray(p.type) && p.type.includes('null')) || !!p.anyOf?.some((v) => v.type === 'null'));
  return Object.fromEntries(Object.entries(value).filter(([k, v]) => v !== null || admitsNull(json.properties?.[k])));
}

/** A closure made in a loop, named by its operation, so a stack trace and a profile say which entry ran. */
const named = <F extends (...args: never[]) => unknown>(name: string, fn: F): F => Object.defineProperty(fn, 'name', { value: name });

/** One entry's field on the query or mutation type. */
function serve(entry: OperationEntry): void {
  const gql = entry.graphql!;
  const params = entryPathParams(entry).map((name) => ({ rest: name, arg: gql.params?.[name] ?? name }));
  // the arguments as GraphQL states them (its own, when the REST query's form does not fit)
  const shown = gql.input ?? entry.input;
  const json = shown ? inputJsonOf(shown) : { properties: {} };
  const required = new Set(json.required ?? []);
  const inputType =
    gql.args === 'input' ? zodInputType(gql.inputType ?? `${gql.field[0].toUpperCase()}${gql.field.slice(1)}Input`, shown!, inputDescription(gql.field)) : null;
  const mutation = gql.kind === 'mutation';
  type Loose = {
    arg: ((o: object) => unknown) & { id(o: object): unknown };
    field(o: object): unknown;
  };
  const addField = (name: string, field: (t: Loose) => unknown): void => {
    if (mutation) builder.mutationField(name, field as never);
    else builder.queryField(name, field as never);
  };

  addField(gql.field, (t) => {
    const arg = t.arg;
    return t.field({
      type: outputType(entry) as never,
      ...(gql.nullable ? { nullable: true } : {}),
      description: gql.description ?? operationDescription(entry.operation),
      ...(entry.input && shapeOf(entry.input).limit ? listLimit(entry.input) : {}),
      authScopes: { operation: entry.operation },
      args: {
        ...Object.fromEntries(params.map((p) => [p.arg, arg.id({ required: true, description: argDescription(p.arg) })])),
        ...(inputType
          ? { input: arg({ type: inputType, required: entry.rest?.bodyRequired ?? !inputOptional(entry), description: ARG_DESCRIPTIONS.input }) }
          : {}),
        ...(gql.args === 'flat'
          ? Object.fromEntries(
              Object.entries(json.properties ?? {}).map(([name, prop]) => [
                name,
                graphqlField((o) => arg(o), prop, required.has(name), `${gql.field}(${name})`),
              ]),
            )
          : {}),
        ...(mutation ? { idempotencyKey: idempotencyKeyArg(t.arg as never) } : {}),
      },
      resolve: named(`graphql ${entry.operation}`, async (_root: unknown, args: Record<string, unknown>, context: GraphQLContext) => {
        const ids = Object.fromEntries(params.map((p) => [p.rest, String(args[p.arg])]));
        const given = gql.args === 'input' ? ((args.input as Record<string, unknown> | null | undefined) ?? {}) : gql.args === 'flat' ? args : {};
        const input =
          gql.args === 'none'
            ? undefined
            : nullsAsAbsent(
                gql.args === 'flat'
                  ? withoutArgs(
                      given,
                      params.map((p) => p.arg),
                    )
                  : given,
                json,
              );
        const call = async (): Promise<Result<unknown>> => {
          const result = await entry.run(context.deps, gqlCtx(context), ids, input);
          return gql.type === 'Boolean' ? done(result) : result;
        };
        return mutation ? idempotentMutation(context, gql.field, args, call) : unwrap(await call());
      }),
    });
  });
}

/** The flat arguments but the ids and the idempotency key: the use case's input. */
function withoutArgs(args: Record<string, unknown>, ids: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([k]) => k !== 'idempotencyKey' && !ids.includes(k)));
}

for (const entry of OPERATIONS) if (entry.graphql) serve(entry);
