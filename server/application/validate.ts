// Parses use-case input with its zod schema; a failure is the `validation_failed` refusal.
import type { z } from 'zod';
import { validationFailed, type FieldError, type Refusal } from '../domain/errors.js';

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** PostgreSQL text cannot hold NUL and jsonb refuses unpaired surrogates: refuse them here, for every face. */
function unstorableStrings(value: unknown, path: string[], out: FieldError[], depth = 0): void {
  if (out.length >= 10 || depth > 32) return;
  if (typeof value === 'string') {
    if (value.includes('\u0000') || UNPAIRED_SURROGATE.test(value)) {
      out.push({ path: path.join('.') || '(root)', message: 'must be valid Unicode text without NUL characters' });
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      unstorableStrings(k, [...path, k], out, depth + 1);
      unstorableStrings(v, [...path, k], out, depth + 1);
    }
  }
}

export function parseInput<S extends z.ZodType>(schema: S, input: unknown): { ok: true; value: z.output<S> } | Refusal {
  const unstorable: FieldError[] = [];
  unstorableStrings(input, [], unstorable);
  if (unstorable.length) return validationFailed(unstorable);
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  return validationFailed(
    parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message })),
  );
}
