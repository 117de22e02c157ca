// Descriptions are written once, on the zod schemas of the use cases (`.describe()`), and shown by every
// face: the OpenAPI document and the MCP tools read them directly; a GraphQL type, input or argument list
// declared over one of those schemas names it where it is declared (`describedBy`), and each of its members
// without a GraphQL-specific description takes the zod member's. Through Pothos's refs (`updateConfig`,
// run when the schema is built) and zod's public API: nothing patches the built schema.
import { z } from 'zod';
import { REST_ROUTE_DOCS } from '../server/rest/openapi.routes.js';

/** A Pothos field, input field or argument ref: what `t.exposeString`, `t.field`, `t.arg` return. */
interface DescribableRef {
  updateConfig(cb: (config: { description?: string | null }) => never): void;
}

/** The schema an optional/nullable/default/readonly/pipe wrapper wraps, if any. */
function unwrapOnce(s: z.ZodType): z.ZodType | undefined {
  if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault || s instanceof z.ZodPrefault || s instanceof z.ZodReadonly)
    return s.unwrap() as z.ZodType;
  if (s instanceof z.ZodCatch) return s.unwrap() as z.ZodType;
  if (s instanceof z.ZodPipe) return s.in as z.ZodType;
  return undefined;
}

/** The description of a member, looking through its wrappers. */
export function describedAs(schema: z.ZodType | undefined): string | undefined {
  for (let s = schema, depth = 0; s && depth < 8; depth++, s = unwrapOnce(s)) if (s.description) return s.description;
  return undefined;
}

/** The members of an object schema, looking through its wrappers (an optional input, a refined object). */
export function shapeOf(schema: z.ZodType): Record<string, z.ZodType> {
  for (let s: z.ZodType | undefined = schema, depth = 0; s && depth < 8; depth++, s = unwrapOnce(s)) {
    if (s instanceof z.ZodObject) return s.shape;
  }
  return {};
}

/**
 * `members` (a type's fields, an input's fields or a field's arguments, as declared), each without a
 * description of its own given its `by` member's. Returns `members`, so it wraps the declaration.
 */
export function describedBy<M extends Record<string, unknown>>(by: z.ZodType, members: M): M {
  const shape = shapeOf(by);
  for (const [name, ref] of Object.entries(members)) {
    const text = describedAs(shape[name]);
    if (!text) continue;
    (ref as DescribableRef).updateConfig(((config: { description?: string | null }) =>
      config.description ? config : { ...config, description: text }) as never);
  }
  return members;
}

/** A page type's description (every list answers `{ data, nextCursor }`). */
export const pageDescription = (item: string): string => `One page of ${item} items, and the cursor of the next page.`;

const PAGE_MEMBERS: Record<string, string> = {
  data: 'The items of this page, in list order.',
  nextCursor: 'Pass it back as `cursor` to get the next page; null on the last page.',
};

/** A page type's `data` and `nextCursor`, each without a description of its own given the shared one. */
export function pageFields<M extends { data: unknown; nextCursor: unknown }>(members: M): M {
  for (const [name, text] of Object.entries(PAGE_MEMBERS)) {
    (members[name as keyof M] as DescribableRef).updateConfig(((config: { description?: string | null }) =>
      config.description ? config : { ...config, description: text }) as never);
  }
  return members;
}

/**
 * A root field's description: the REST operation's of the same permission-table operation, so both faces
 * say the same (the operation's own REST write when it has one, else its read).
 */
export function operationDescription(operation: string): string | undefined {
  const doc = REST_ROUTE_DOCS.find((r) => r.operation === operation && r.method !== 'get') ?? REST_ROUTE_DOCS.find((r) => r.operation === operation);
  return doc ? ((doc as { description?: string }).description ?? doc.summary) : undefined;
}

/** The conventional arguments every area shares: the ids a field acts on and its `input`. */
export const ARG_DESCRIPTIONS = {
  id: 'The id (a UUID) of the object the field acts on; an id that is not a UUID is not found.',
  userId: 'The user id (a UUID).',
  keyId: 'The API key id (a UUID).',
  appId: "The connected app's id (the OAuth grant's id, as listed).",
  deliveryId: 'The delivery id (a UUID).',
  input: 'The fields of the change, as the REST body of the same operation takes them.',
} as const;

/** An input object type's description when it has none of its own: the field it is the input of. */
export const inputDescription = (field: string): string => `The input of \`${field}\`.`;

/**
 * What a list field declares about its `limit` (server/graphql/list-budget.ts reads it from the field's
 * extensions): the zod schema the use case parses it with, so the budget applies its default and maximum.
 */
export function listLimit(by: z.ZodType): { extensions: { limit: z.ZodType } } {
  const limit = shapeOf(by).limit;
  if (!limit) throw new Error('listLimit: the schema has no limit');
  return { extensions: { limit } };
}

/** The conventional description of an id or input argument named `name`, if it is one. */
export const argDescription = (name: string): string | undefined => (ARG_DESCRIPTIONS as Record<string, string>)[name];

/**
 * A field's arguments, as declared: each without a description of its own takes its `by` member's (the
 * use case's input schema), else the conventional one for its name (`id`, `userId`, `keyId`, `input`).
 */
export function describedArgs<M extends Record<string, unknown>>(args: M, by?: z.ZodType): M {
  const shape = by ? shapeOf(by) : {};
  for (const [name, ref] of Object.entries(args)) {
    const text = describedAs(shape[name]) ?? argDescription(name);
    if (!text) continue;
    (ref as DescribableRef).updateConfig(((config: { description?: string | null }) =>
      config.description ? config : { ...config, description: text }) as never);
  }
  return args;
}
