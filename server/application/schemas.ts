// The value rules every area's inputs share (SPEC §2): one UUID check and one name rule.
import { z } from 'zod';
import { UUID_RE } from '../domain/ids.js';

/** A UUID in any case, lower-cased (the form the database returns and ids are compared in). */
export const uuidSchema = z
  .string()
  .regex(UUID_RE, 'must be a UUID')
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
