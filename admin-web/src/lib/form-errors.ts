// Maps a VALIDATION_FAILED error's `errors: [{path, message}]` onto form fields by their last path segment.
import type { CombinedError } from 'urql';
import { fieldErrors } from './errors.js';

export function errorFor(error: CombinedError | undefined, field: string): string | undefined {
  const match = fieldErrors(error).find((e) => {
    const path = String(e.path);
    return path === field || path.endsWith(`.${field}`) || path.endsWith(`/${field}`);
  });
  return match?.message;
}
