// List paging shared by every list (SPEC §5): `limit` 1–100 (default 20) and an opaque keyset cursor,
// which is base64url JSON of the last row's sort key that the client hands back unchanged.
import { z } from 'zod';
import { UUID_RE } from '../domain/ids.js';
import { validationFailed, type Refusal } from '../domain/errors.js';

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

function decodeCursorValue(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The decoded cursor, or the 400 refusal when it is not one we issued for this query. */
export function decodeCursor<T>(cursor: string, check: (v: any) => v is T): { ok: true; value: T } | Refusal {
  const value = decodeCursorValue(cursor);
  if (check(value)) return { ok: true, value };
  return validationFailed([{ path: 'cursor', message: 'is not a cursor this list issued' }]);
}

const blankToUndefined = (v: unknown) => (v === null || v === '' ? undefined : v);

export const limitSchema = z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(100).default(20));

/** A cursor whose sort key is a list of strings (identity lists), validated as part of the input. */
export const cursorSchema = z.preprocess(
  blankToUndefined,
  z
    .string()
    .max(512)
    .transform((s, ctx) => {
      const parts = decodeCursorValue(s);
      if (Array.isArray(parts) && parts.every((p) => typeof p === 'string')) return parts as string[];
      ctx.addIssue({ code: 'custom', message: 'is not a cursor this service issued' });
      return z.NEVER;
    })
    .optional(),
);

/** Rows were fetched with `limit + 1`: trims and builds the next cursor from the last row kept. */
export function toPage<R, T>(rows: R[], limit: number, key: (row: R) => string[], view: (row: R) => T): Page<T> {
  const kept = rows.slice(0, limit);
  const more = rows.length > limit;
  return { data: kept.map(view), nextCursor: more && kept.length ? encodeCursor(key(kept[kept.length - 1])) : null };
}

export const uuidSchema = z.string().regex(UUID_RE, 'must be a UUID').transform((s) => s.toLowerCase());

/** `%text%` for ILIKE, with the wildcards the user typed matched literally (backslash is the default escape). */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
