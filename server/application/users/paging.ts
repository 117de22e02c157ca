// Shared list paging (SPEC §5): `limit` 1–100 (default 20) and an opaque `cursor`.
import { z } from 'zod';
import { UUID_RE } from '../../domain/ids.js';

const blankToUndefined = (v: unknown) => (v === null || v === '' ? undefined : v);

export const limitSchema = z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(100).default(20));

/** An opaque cursor: base64url of the sort key of the last row returned. */
export const cursorSchema = z.preprocess(
  blankToUndefined,
  z
    .string()
    .max(512)
    .transform((s, ctx) => {
      try {
        const parts = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
        if (Array.isArray(parts) && parts.every((p) => typeof p === 'string')) return parts as string[];
      } catch {
        // fall through
      }
      ctx.addIssue({ code: 'custom', message: 'is not a cursor this service issued' });
      return z.NEVER;
    })
    .optional(),
);

export function encodeCursor(parts: string[]): string {
  return Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** Rows were fetched with `limit + 1`: trims and builds the next cursor from the last row kept. */
export function toPage<R, T>(rows: R[], limit: number, key: (row: R) => string[], view: (row: R) => T): Page<T> {
  const kept = rows.slice(0, limit);
  const more = rows.length > limit;
  return { data: kept.map(view), nextCursor: more && kept.length ? encodeCursor(key(kept[kept.length - 1])) : null };
}

export const uuidSchema = z.string().regex(UUID_RE, 'must be a UUID').transform((s) => s.toLowerCase());
