// Opaque keyset cursors: base64url JSON the client hands back unchanged.
import { validationFailed, type Refusal } from '../domain/errors.js';

export function encodeCursor(value: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** The decoded cursor, or the 400 refusal when it is not one we issued for this query. */
export function decodeCursor<T>(cursor: string, check: (v: any) => v is T): { ok: true; value: T } | Refusal {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (check(value)) return { ok: true, value };
  } catch {
    // fall through
  }
  return validationFailed([{ path: 'cursor', message: 'is not a cursor this list issued' }]);
}

/** `%text%` for ILIKE, with the wildcards the user typed matched literally (backslash is the default escape). */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export { UUID_RE } from '../domain/ids.js';
