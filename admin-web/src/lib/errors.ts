// Reading GraphQL errors the server sends: the upper-cased SPEC code and its extension members.
import type { CombinedError } from 'urql';

export interface FieldError {
  path: string;
  message: string;
  /** SPEC §7: stable code (`too_long`, `required`, …) and its figures (`{max: 200}`) */
  code?: string;
  params?: Record<string, unknown>;
}

export function errorCode(error: CombinedError | undefined | null): string | null {
  if (!error) return null;
  for (const e of error.graphQLErrors) {
    const code = e.extensions?.code;
    if (typeof code === 'string') return code;
  }
  return error.networkError ? 'NETWORK' : null;
}

export function fieldErrors(error: CombinedError | undefined | null): FieldError[] {
  if (!error) return [];
  for (const e of error.graphQLErrors) {
    const list = e.extensions?.errors;
    if (Array.isArray(list)) return list as FieldError[];
  }
  return [];
}
