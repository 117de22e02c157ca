// A GraphQL input type from a zod object schema: the field names, types, nullability and descriptions
// come from its JSON Schema (zod 4's z.toJSONSchema, the same the OpenAPI document and MCP tools show).
// The use case parses the input again with the zod schema itself, so bounds and refinements hold on
// every face; GraphQL only states the shape.
import { z } from 'zod';
import { builder } from './builder.js';

type JsonSchema = { type?: string | string[]; format?: string; description?: string; anyOf?: JsonSchema[]; properties?: Record<string, JsonSchema>; required?: string[] };

/** The GraphQL scalar of one JSON Schema property, and whether it admits null. */
function scalarOf(json: JsonSchema): { scalar: 'ID' | 'String' | 'Int' | 'Float' | 'Boolean'; nullable: boolean } {
  const variants = json.anyOf ?? (Array.isArray(json.type) ? json.type.map((type) => ({ ...json, type })) : [json]);
  const nullable = variants.some((v) => v.type === 'null');
  const [v] = variants.filter((x) => x.type !== 'null');
  if (!v || variants.length - (nullable ? 1 : 0) !== 1) throw new Error(`zodInputType: unsupported property ${JSON.stringify(json)}`);
  const scalar = v.type === 'string' ? (v.format === 'uuid' ? 'ID' : 'String') : v.type === 'integer' ? 'Int' : v.type === 'number' ? 'Float' : v.type === 'boolean' ? 'Boolean' : null;
  if (!scalar) throw new Error(`zodInputType: unsupported type ${String(v.type)}`);
  return { scalar, nullable };
}

/** A property is required in GraphQL only when the schema requires it and it cannot be null. */
export function zodInputType(name: string, schema: z.ZodType, description?: string) {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const required = new Set(json.required ?? []);
  const properties = Object.entries(json.properties ?? {});
  if (properties.length === 0) throw new Error(`zodInputType: ${name} has no fields`);
  return builder.inputType(name, {
    ...(description ? { description } : {}),
    fields: (t) =>
      Object.fromEntries(
        properties.map(([field, prop]) => {
          const { scalar, nullable } = scalarOf(prop);
          return [field, t.field({ type: scalar, required: required.has(field) && !nullable, ...(prop.description ? { description: prop.description } : {}) })];
        }),
      ),
  });
}
