import { describe, expect, it } from 'vitest';
import { coversAll, expandGrants, grantCovers, hasPermission, isKnownGrant, narrowGrants, PERMISSION_CATALOGUE } from '../../server/domain/permissions.js';

describe('permission grants', () => {
  it('matches exact permissions, resource wildcards and the global wildcard', () => {
    expect(grantCovers('tensions:read', 'tensions:read')).toBe(true);
    expect(grantCovers('tensions:*', 'tensions:delete')).toBe(true);
    expect(grantCovers('*', 'roles:write')).toBe(true);
    expect(grantCovers('tensions:*', 'actors:read')).toBe(false);
    expect(grantCovers('tensions:read', 'tensions:write')).toBe(false);
  });

  it('matches a wildcard only as a whole segment', () => {
    expect(grantCovers('tens*', 'tensions:read')).toBe(false);
    expect(grantCovers('tensions:re*', 'tensions:read')).toBe(false);
    expect(isKnownGrant('tensions:re*')).toBe(false);
    expect(isKnownGrant('tens*:read')).toBe(false);
  });

  it('knows the catalogue and refuses anything else', () => {
    for (const p of PERMISSION_CATALOGUE) expect(isKnownGrant(p)).toBe(true);
    expect(isKnownGrant('users:*')).toBe(true);
    expect(isKnownGrant('*')).toBe(true);
    expect(isKnownGrant('tensions:fly')).toBe(false);
    expect(isKnownGrant('bananas:*')).toBe(false);
    expect(isKnownGrant('')).toBe(false);
  });

  it('expands grants to the effective catalogue permissions', () => {
    expect(expandGrants(['tensions:*', 'actors:read'])).toEqual(['tensions:read', 'tensions:write', 'tensions:delete', 'actors:read']);
    expect(expandGrants(['*'])).toEqual([...PERMISSION_CATALOGUE]);
    expect(hasPermission([], 'tensions:read')).toBe(false);
  });

  it('finds what a caller would hand out without holding it', () => {
    expect(coversAll(['tensions:*'], ['tensions:read', 'tensions:write'])).toEqual([]);
    expect(coversAll(['tensions:read'], ['tensions:*'])).toEqual(['tensions:*']);
    expect(coversAll(['tensions:*', 'actors:*', 'users:*', 'roles:*', 'projections:rebuild'], ['*'])).toEqual(['*']);
    expect(coversAll(['*'], ['*', 'users:write'])).toEqual([]);
  });

  it('narrows the grants of a user to the list of its key, never beyond the user', () => {
    expect(narrowGrants(['tensions:*', 'actors:read'], null)).toEqual(['tensions:*', 'actors:read']);
    expect(narrowGrants(['*'], ['tensions:read'])).toEqual(['tensions:read']);
    expect(narrowGrants(['*'], ['*'])).toEqual(['*']);
    expect(narrowGrants(['*'], [])).toEqual([]);
    // A key grant wider than the user keeps only what the user holds under it.
    expect(narrowGrants(['tensions:read', 'actors:read'], ['tensions:*'])).toEqual(['tensions:read']);
    expect(narrowGrants(['tensions:*'], ['*'])).toEqual(['tensions:read', 'tensions:write', 'tensions:delete']);
    // A permission the user lost is gone from the key too.
    expect(narrowGrants(['actors:read'], ['tensions:read', 'actors:read'])).toEqual(['actors:read']);
    // Escalation reads the narrowed set: a `*` user's read-only key cannot act on an admin.
    expect(coversAll(narrowGrants(['*'], ['users:write']), ['*'])).toEqual(['*']);
  });
});
