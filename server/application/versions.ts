// `expectedVersion` on identity edits (SPEC §2): the same rule and the same 409 as tension commands.
import type { Refusal } from '../domain/errors.js';
import { versionConflict } from './tensions/command-path.js';
import { expectedVersion } from './tensions/tension.inputs.js';

/** The optional `expectedVersion` input field of an edit of a `what` (user, role, actor). */
export const expectedVersionOf = (what: string) =>
  expectedVersion.describe(`Refuse with version_conflict, writing nothing, unless the ${what} is at this version (the version you last read).`);

/** null when the client expected nothing or the row's current version; otherwise 409 `version_conflict`. */
export function staleVersion(what: string, currentVersion: number, expected: number | undefined): Refusal | null {
  return expected !== undefined && expected !== currentVersion ? versionConflict(currentVersion, expected, what) : null;
}
