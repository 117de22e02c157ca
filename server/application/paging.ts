// List paging shared by every list (SPEC §5, §7): `limit` 1–100 (default 20) and an opaque keyset cursor.
// A cursor is base64url JSON of the last row's sort key, then `.` and an HMAC of the list's name and that
// payload, keyed from the session secret: the server recognises its own cursors, and anything else (forged,
// altered, another list's) is 400 `validation_failed` before any query. The decoded key is checked again
// against the list's strict schema, so even a cursor signed by an older release cannot reach SQL malformed.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { UUID_RE } from '../domain/ids.js';
import { intParam } from './schemas.js';
import { ok, validationFailed, type Result } from '../domain/errors.js';
import type { Deps } from './context.js';

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** Every list that pages; a cursor is valid for the list that issued it only. */
export type ListName = 'tensions' | 'tensionHistory' | 'actors' | 'users' | 'roles' | 'apiKeys' | 'events' | 'audit' | 'webhooks' | 'webhookDeliveries';

/** Room for the longest genuine key (a 200-character name of escaped characters) with its signature. */
const MAX_CURSOR_LENGTH = 2048;
const SIGNATURE_BYTES = 16;

type CursorDeps = Pick<Deps, 'sessionSecret'>;

/** The signing key: an HMAC of a fixed label under the session secret, so the secret itself never signs cursors. */
function cursorKey(deps: CursorDeps): Buffer {
  let key = cursorKeys.get(deps.sessionSecret);
  if (!key) {
    key = createHmac('sha256', deps.sessionSecret).update('market-service list cursor v1').digest();
    cursorKeys.set(deps.sessionSecret, key);
  }
  return key;
}

/** Derived once per secret, not on every page (a process has one secret; tests a few). */
const cursorKeys = new Map<string, Buffer>();

function signature(deps: CursorDeps, list: ListName, payload: string): Buffer {
  return createHmac('sha256', cursorKey(deps)).update(`${list}\n${payload}`).digest().subarray(0, SIGNATURE_BYTES);
}

export function encodeCursor(deps: CursorDeps, list: ListName, key: unknown): string {
  const payload = Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
  return `${payload}.${signature(deps, list, payload).toString('base64url')}`;
}

const notOurs = () =>
  validationFailed(
    [{ path: 'cursor', message: 'is not a cursor this list issued', code: 'invalid_format', params: { format: 'cursor' } }],
    'The cursor is not one this list issued; start again without it.',
  );

/** The cursor's key, checked by `schema`, or the 400 refusal when the server did not issue it for `list`. */
export function decodeCursor<S extends z.ZodType>(deps: CursorDeps, list: ListName, cursor: string, schema: S): Result<z.output<S>> {
  if (cursor.length > MAX_CURSOR_LENGTH) return notOurs();
  const dot = cursor.indexOf('.');
  if (dot < 1) return notOurs();
  const payload = cursor.slice(0, dot);
  // Compared as text: base64url decoding skips stray characters, so decoded bytes could match an altered cursor.
  const given = Buffer.from(cursor.slice(dot + 1), 'utf8');
  const expected = Buffer.from(signature(deps, list, payload).toString('base64url'), 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return notOurs();
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return notOurs();
  }
  const parsed = schema.safeParse(key);
  return parsed.success ? ok(parsed.data) : notOurs();
}

const blankToUndefined = (v: unknown) => (v === null || v === '' ? undefined : v);

/** What `limit` and `cursor` mean, said the same way on every list. */
export const LIMIT_DESCRIPTION = 'At most this many items, 1-100; 20 when omitted.';
export const CURSOR_DESCRIPTION = "The previous page's nextCursor; omitted for the first page. Opaque: a cursor this list did not issue is 400.";

/**
 * THE `limit` of every list, on every face: an integer 1-`max` as a number (GraphQL's Int, MCP's JSON) or as
 * decimal text (a query string: digits only, leading zeros allowed, the pattern the OpenAPI document states);
 * absent, blank or null is `fallback`. Its JSON Schema states the default and the maximum, which the per-request
 * list budget reads (server/application/budgets.ts), and GraphQL shows it as an Int (schema/zod-input.ts).
 */
export const limitParam = (max = 100, fallback = 20, description = LIMIT_DESCRIPTION) =>
  z.preprocess(blankToUndefined, intParam(1, max).default(fallback)).describe(description);

/** The limit of the lists of SPEC §5: 1-100, 20 when omitted. */
export const pageLimit = limitParam();

/** The opaque cursor as a list input takes it; `decodeCursor` reads it in the use case. */
export const cursorParam = z.string().max(MAX_CURSOR_LENGTH);

/** THE `cursor` input of every list: a blank or null cursor means the first page. */
export const cursorSchema = z.preprocess(blankToUndefined, cursorParam.optional()).describe(CURSOR_DESCRIPTION);

/** A list's answer: one page of `item`s and the cursor of the next (SPEC §5). */
export const pageOutput = <T extends z.ZodType>(item: T, what: string) =>
  z.object({
    data: z.array(item).describe(`This page of ${what}.`),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
  });

/**
 * Rows were fetched with `limit + 1`: trims and builds the next cursor from the last row kept. `resume`: the
 * read stopped at its budget before the page filled, and the next page starts after that row (read, not
 * kept), however few rows this one holds.
 */
export function toPage<R, T>(
  deps: CursorDeps,
  list: ListName,
  rows: R[],
  limit: number,
  key: (row: R) => unknown,
  view: (row: R) => T,
  resume: R | null = null,
): Page<T> {
  const kept = rows.slice(0, limit);
  const last = rows.length > limit && kept.length ? kept[kept.length - 1] : resume;
  return { data: kept.map(view), nextCursor: last ? encodeCursor(deps, list, key(last)) : null };
}

// ---- the values a cursor key may hold: each exactly what PostgreSQL accepts for its column ----------

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?(?:Z|[+-](\d{2})(?::?(\d{2}))?)$/;

/** A timestamp as PostgreSQL prints it (`::text`) or as `toISOString` does: a real calendar date, years 1–9999. */
export const instantKey = z.string().refine((s) => {
  const m = INSTANT.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, sec, oh, om] = m.slice(1).map((p) => (p === undefined ? 0 : Number(p)));
  const date = new Date(Date.UTC(2000, mo - 1, d));
  return (
    y >= 1 &&
    date.getUTCMonth() === mo - 1 &&
    date.getUTCDate() === d &&
    h <= 23 &&
    mi <= 59 &&
    sec <= 59 &&
    oh <= 15 &&
    om <= 59 &&
    (mo !== 2 || d !== 29 || (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)))
  );
});

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text PostgreSQL can compare: bounded, no NUL, no unpaired surrogate. */
export const textKey = z
  .string()
  .max(1000)
  .refine((s) => !s.includes('\u0000') && !UNPAIRED_SURROGATE.test(s));

/** An id in a cursor key: the one UUID pattern (not lower-cased: the server wrote it from a row). */
export const uuidKey = z.string().regex(UUID_RE);

/** An `int4` column's value as text (a score's `::text`). */
export const intTextKey = z.string().regex(/^-?\d{1,9}$/);

/** Identity lists page by `(created_at, id)`. */
export const createdAtIdKey = z.tuple([instantKey, uuidKey]);
