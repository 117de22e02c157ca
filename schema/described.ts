// Descriptions are written once, on the zod schemas of the use cases (`.describe()`), and shown by every
// face: the OpenAPI document and the MCP tools read them directly; a GraphQL type, input or argument list
// declared over one of those schemas names it where it is declared (`describedBy`), and each of its members
// without a GraphQL-specific description takes the zod member's. Through Pothos's refs (`updateConfig`,
// run when the schema is built) and zod's public API: nothing patches the built schema.
import { z } from 'zod';

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
    if (s instanceof z.ZodObject) return s.shape as Record<string, z.ZodType>;
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
