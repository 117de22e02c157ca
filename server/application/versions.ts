// `expectedVersion` (SPEC §2, §7): one input field and one 409 for every versioned thing (tensions, users,
// roles, actors, webhook endpoints).
import { z } from 'zod';
import { refuse, type Refusal } from '../domain/errors.js';

/** The optional `expectedVersion` input field of an edit of a `what` (tension, user, role, actor). */
export const expectedVersionOf = (what: string) =>
  z
    .number()
    .int()
    .min(0)
    .max(2_147_483_647)
    .nullish()
    .transform((v) => v ?? undefined)
    .describe(`Refuse with version_conflict, writing nothing, unless the ${what} is at this version (the version you last read).`);

/** 409 `version_conflict` (SPEC §7): the row is at `currentVersion`, not the one the client expected. */
export function versionConflict(currentVersion: number, expectedVersion: number | undefined, what = 'tension') {
  return refuse('version_conflict', `The ${what} is at version ${currentVersion}; reload it and try again.`, {
    currentVersion,
    ...(expectedVersion !== undefined ? { expectedVersion } : {}),
  });
}

/** null when the client expected nothing or the row's current version; otherwise 409 `version_conflict`. */
export function staleVersion(what: string, currentVersion: number, expected: number | undefined): Refusal | null {
  return expected !== undefined && expected !== currentVersion ? versionConflict(currentVersion, expected, what) : null;
}
