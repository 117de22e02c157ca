// The value rules every area's inputs share (SPEC §2): one UUID check and one name rule.
import { z } from 'zod';
import { UUID_RE } from '../domain/ids.js';

/**
 * THE UUID of every input on every face (body, query, GraphQL argument, MCP argument): any 8-4-4-4-12 hex
 * text in either case (UUID_RE), lower-cased (the form the database returns and ids are compared in).
 * A string format named `uuid` with that pattern (zod's own z.uuid() checks RFC 9562's version and variant bits), so a malformed id is `invalid_format` with `format: uuid`
 * and the JSON Schema (OpenAPI, MCP tools, GraphQL's `ID`) says `format: uuid` with the pattern served.
 */
export const uuidSchema = z
  .stringFormat('uuid', UUID_RE, { error: (issue) => (issue.code === 'invalid_format' ? 'must be a UUID' : undefined) })
  .transform((s) => s.toLowerCase());

/** A path id: the lower-cased id, or null when it is not a UUID (which is simply not found). */
export function idOf(id: string): string | null {
  return UUID_RE.test(id) ? id.toLowerCase() : null;
}

/** Lengths count code points, as JSON Schema's `maxLength` does: an emoji is one character, not two. */
export const codePoints = (s: string) => [...s].length;

/** A display name (users, roles, actors, tensions, API keys): trimmed, 1–200 code points. */
export const nameSchema = z
  .string()
  .transform((s) => s.trim())
  .refine((s) => codePoints(s) >= 1, 'must not be empty')
  .refine((s) => codePoints(s) <= 200, 'must be at most 200 characters')
  .meta({ minLength: 1, maxLength: 200 });

/** A pattern for the decimal text of an integer in [min, max] (0 ≤ min ≤ max), leading zeros allowed. */
export function digitsInRange(min: number, max: number): string {
  const parts: string[] = [];
  for (let digits = 1; digits <= String(max).length; digits++) {
    const first = digits === 1 ? 0 : 10 ** (digits - 1);
    const lo = Math.max(min, first);
    const hi = Math.min(max, 10 ** digits - 1);
    if (lo > hi) continue;
    if (digits === 1) parts.push(lo === hi ? String(lo) : `[${lo}-${hi}]`);
    else if (lo === first && hi === 10 ** digits - 1) parts.push(`[1-9]\\d{${digits - 1}}`);
    else if (hi - lo < 20) for (let n = lo; n <= hi; n++) parts.push(String(n));
    else throw new Error(`digitsInRange: no pattern for ${lo}-${hi}`);
  }
  return `^0*(?:${parts.join('|')})$`;
}

/**
 * An integer from a query string ("20") or a GraphQL Int / MCP number (20). The bounds are checked once,
 * after the union (so 0 is `too_small`, not a union failure); `.meta` shows them on the number branch too,
 * so the OpenAPI parameter and the MCP input schema state them.
 */
export const intParam = (min: number, max: number) =>
  z
    .union([
      z.number().meta({ type: 'integer', minimum: min, maximum: max }),
      // the pattern states what is served (leading zeros allowed), not merely "digits"
      z
        .string()
        .max(10)
        .regex(/^\d+$/, 'must be an integer')
        .meta({ pattern: digitsInRange(min, max) })
        .transform(Number),
    ])
    .pipe(z.number().int().min(min).max(max));
