// A GraphQL input type from a zod object schema: the field names, types, nullability and descriptions
// come from its JSON Schema (zod 4's z.toJSONSchema, the same the OpenAPI document and MCP tools show).
// The use case parses the input again with the zod schema itself, so bounds and refinements hold on
// every face; GraphQL only states the shape.
//
// What a property becomes:
// - a string: `ID` when it is a UUID (format uuid, as server/application/schemas.ts's uuidSchema says, or UUID_RE's pattern), `DateTime` for
//   format date-time, else `String`;
// - an enum: the GraphQL enum registered in schema/enums.ts with exactly these values, else `String` (the
//   permission grants `tensions:*` are no GraphQL names; the use case checks the value);
// - integer, number, boolean: `Int`, `Float`, `Boolean`;
// - an array of any of those: a list of non-null items (`[ID!]`).
// Anything else (objects, unions of two types) is refused when the schema is built, so it fails at start-up
// and in the schema drift test rather than at a request.
import { z } from 'zod';
import type { InputObjectRef } from '@pothos/core';
import { builder } from './builder.js';
import { enumOfValues } from './enums.js';
import { UUID_RE } from '../server/domain/ids.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

export type JsonSchema = {
  type?: string | string[];
  format?: string;
  pattern?: string;
  enum?: unknown[];
  description?: string;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
};

type Scalar = 'ID' | 'String' | 'Int' | 'Float' | 'Boolean' | 'DateTime';
/** What one property is in GraphQL: a scalar or enum, maybe a list of them, and whether it admits null. */
export interface GraphqlShape {
  named: Scalar | NonNullable<ReturnType<typeof enumOfValues>>;
  list: boolean;
  nullable: boolean;
}

/** The one non-null variant of a property (`anyOf [X, null]`, `type: [X, 'null']`), and whether null was one. */
function variantsOf(json: JsonSchema): { v: JsonSchema | undefined; nullable: boolean; count: number } {
  const variants = json.anyOf ?? (Array.isArray(json.type) ? json.type.map((type) => ({ ...json, type })) : [json]);
  const nullable = variants.some((x) => x.type === 'null');
  const rest = variants.filter((x) => x.type !== 'null');
  return { v: rest[0], nullable, count: rest.length };
}

/**
 * Enum-valued inputs that stay `String`: the webhook event types are the tension events today, but every
 * area's events join them later, when they would stop matching `TensionEventType` and the type would change
 * under clients; as String they keep one type (the use case checks the value).
 */
const OPEN_SETS = new Set(['CreateWebhookInput.types', 'UpdateWebhookInput.types']);

function namedOf(v: JsonSchema, where: string): GraphqlShape['named'] {
  if (v.enum) {
    if (!v.enum.every((x) => typeof x === 'string')) throw new Error(`zodInputType: ${where}: only string enums are supported`);
    if (OPEN_SETS.has(where)) return 'String';
    return enumOfValues(v.enum) ?? 'String';
  }
  switch (v.type) {
    case 'string':
      if (v.format === 'uuid' || v.pattern === UUID_RE.source) return 'ID';
      return v.format === 'date-time' ? 'DateTime' : 'String';
    case 'integer':
      return 'Int';
    case 'number':
      return 'Float';
    case 'boolean':
      return 'Boolean';
    default:
      throw new Error(`zodInputType: ${where}: unsupported type ${JSON.stringify(v)}`);
  }
}

/**
 * An integer given as a number or as its decimal text (server/application/schemas.ts `intParam`: every list's
 * `limit`, the query integers): GraphQL states it as the Int it is; the text form is for query strings.
 */
function numberOrDigits(json: JsonSchema, found: ReturnType<typeof variantsOf>): ReturnType<typeof variantsOf> {
  const digits = json.anyOf?.some((x) => x.type === 'string' && x.pattern !== undefined);
  return found.count === 2 && found.v?.type === 'integer' && digits ? { ...found, count: 1 } : found;
}

/** The GraphQL shape of one JSON Schema property; throws for what GraphQL inputs here cannot say. */
export function graphqlShapeOf(json: JsonSchema, where = 'property'): GraphqlShape {
  const { v, nullable, count } = numberOrDigits(json, variantsOf(json));
  if (!v || count !== 1) throw new Error(`zodInputType: ${where}: unsupported property ${JSON.stringify(json)}`);
  if (v.type === 'array') {
    if (!v.items) throw new Error(`zodInputType: ${where}: an array needs items`);
    const item = variantsOf(v.items);
    if (!item.v || item.count !== 1 || item.nullable || item.v.type === 'array')
      throw new Error(`zodInputType: ${where}: unsupported items ${JSON.stringify(v.items)}`);
    return { named: namedOf(item.v, where), list: true, nullable };
  }
  return { named: namedOf(v, where), list: false, nullable };
}

/** The input JSON Schema of a zod object (what a client sends), with its properties and required names. */
export function inputJsonOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

/** One field or argument of a property: required in GraphQL only when the schema requires it and it cannot be null. */
export function graphqlField<R>(
  make: (options: { type: never; required: boolean; description?: string }) => R,
  prop: JsonSchema,
  required: boolean,
  where: string,
  description = prop.description,
): R {
  const { named, list, nullable } = graphqlShapeOf(prop, where);
  const type = (list ? [named] : named) as never;
  return make({ type, required: required && !nullable, ...(description ? { description } : {}) });
}

/** The input types made so far, by name: two operations taking one input (`CreateApiKeyInput`) share its type. */
const MADE = new Map<string, { schema: z.ZodType; ref: InputObjectRef<Types, Record<string, unknown>> }>();

export function zodInputType(name: string, schema: z.ZodType, description?: string): InputObjectRef<Types, Record<string, unknown>> {
  const made = MADE.get(name);
  if (made) {
    if (made.schema !== schema) throw new Error(`zodInputType: ${name} is made from two different schemas`);
    return made.ref;
  }
  const json = inputJsonOf(schema);
  const required = new Set(json.required ?? []);
  const properties = Object.entries(json.properties ?? {});
  if (properties.length === 0) throw new Error(`zodInputType: ${name} has no fields`);
  const ref = builder.inputType(name, {
    ...(description ? { description } : {}),
    fields: (t) =>
      Object.fromEntries(properties.map(([field, prop]) => [field, graphqlField((o) => t.field(o), prop, required.has(field), `${name}.${field}`)])),
  });
  MADE.set(name, { schema, ref });
  return ref;
}
