// Parses use-case input with its zod schema; a failure is the `validation_failed` refusal.
import type { z } from 'zod';
import { isFieldErrorCode, validationFailed, type FieldError, type FieldErrorCode, type Refusal } from '../domain/errors.js';

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** PostgreSQL text cannot hold NUL and jsonb refuses unpaired surrogates: refuse them here, for every face. */
function unstorableStrings(value: unknown, path: string[], out: FieldError[], depth = 0): void {
  if (out.length >= 10 || depth > 32) return;
  if (typeof value === 'string') {
    if (value.includes('\u0000') || UNPAIRED_SURROGATE.test(value)) {
      out.push({
        path: path.join('.') || '(root)',
        message: 'must be valid Unicode text without NUL characters',
        code: 'invalid_format',
        params: { format: 'text' },
      });
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      unstorableStrings(k, [...path, k], out, depth + 1);
      unstorableStrings(v, [...path, k], out, depth + 1);
    }
  }
}

type Issue = z.core.$ZodIssue;
const SIZED: Record<string, [FieldErrorCode, FieldErrorCode]> = {
  string: ['too_short', 'too_long'],
  array: ['too_small', 'too_big'],
  set: ['too_small', 'too_big'],
};

/** A zod issue as SPEC §7's stable `code` and its `params` (lengths for text, bounds for numbers). */
function issueCode(i: Issue): { code: FieldErrorCode; params: Record<string, unknown> } {
  // reportInput: a key that is absent arrives as an issue about `undefined`, whatever the schema expected
  if ((i.code === 'invalid_type' || i.code === 'invalid_value') && 'input' in i && i.input === undefined) return { code: 'required', params: {} };
  switch (i.code) {
    case 'too_small': {
      const [code] = SIZED[i.origin] ?? ['too_small'];
      return { code, params: { min: Number(i.minimum) } };
    }
    case 'too_big': {
      const [, code] = SIZED[i.origin] ?? ['too_small', 'too_big'];
      return { code, params: { max: Number(i.maximum) } };
    }
    case 'invalid_type':
      return { code: 'invalid_type', params: { expected: i.expected } };
    case 'unrecognized_keys':
      return { code: 'unknown_field', params: { keys: i.keys } };
    case 'invalid_format':
      return { code: 'invalid_format', params: { format: i.format } };
    case 'invalid_value':
      return { code: 'invalid_value', params: { values: i.values.map(String) } };
    case 'custom': {
      // a refinement may name its code in params; the length rules counted in code points say it in words
      const named: unknown = (i.params as Record<string, unknown> | undefined)?.code;
      if (isFieldErrorCode(named)) return { code: named, params: { ...i.params, code: undefined } };
      const max = /at most (\d+) characters/.exec(i.message);
      if (max) return { code: 'too_long', params: { max: Number(max[1]) } };
      if (/must not be empty/.test(i.message)) return { code: 'too_short', params: { min: 1 } };
      if (/is required/.test(i.message)) return { code: 'required', params: {} };
      return { code: 'invalid_value', params: {} };
    }
    default:
      return { code: 'invalid_value', params: {} };
  }
}

export function parseInput<S extends z.ZodType>(schema: S, input: unknown): { ok: true; value: z.output<S> } | Refusal {
  const unstorable: FieldError[] = [];
  unstorableStrings(input, [], unstorable);
  if (unstorable.length) return validationFailed(unstorable);
  // zod's compiled fast path is taken only without options: parse plainly, and again for the issues' inputs
  // only when it fails (`reportInput` made every parse of a rescore's input ten times slower)
  const plain = schema.safeParse(input ?? {});
  if (plain.success) return { ok: true, value: plain.data };
  const parsed = schema.safeParse(input ?? {}, { reportInput: true });
  if (parsed.success) return { ok: true, value: parsed.data };
  return validationFailed(parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message, ...issueCode(i) })));
}
