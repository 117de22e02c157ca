// Parses use-case input with its zod schema; a failure is the `validation_failed` refusal.
import type { z } from 'zod';
import { validationFailed, type Refusal } from '../domain/errors.js';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown): { ok: true; value: z.output<S> } | Refusal {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  return validationFailed(
    parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message })),
  );
}
