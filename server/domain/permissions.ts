// The permission catalogue and the one matching rule every face uses (SPEC §2, Role).

export const PERMISSION_CATALOGUE = [
  'tensions:read',
  'tensions:write',
  'tensions:delete',
  'actors:read',
  'actors:write',
  'actors:delete',
  'users:read',
  'users:write',
  'roles:read',
  'roles:write',
  'projections:rebuild',
  'events:read',
  'audit:read',
  'webhooks:read',
  'webhooks:write',
] as const;

export type Permission = (typeof PERMISSION_CATALOGUE)[number];

const RESOURCES = new Set(PERMISSION_CATALOGUE.map((p) => p.split(':')[0]));

/** Every grant a role or key scope can name: `*`, `<resource>:*`, each catalogue permission. */
export const KNOWN_GRANTS: readonly string[] = ['*', ...[...RESOURCES].map((r) => `${r}:*`), ...PERMISSION_CATALOGUE];

/** A grant is a catalogue permission, `<resource>:*` for a known resource, or `*`. */
export function isKnownGrant(grant: string): boolean {
  if (grant === '*') return true;
  if ((PERMISSION_CATALOGUE as readonly string[]).includes(grant)) return true;
  const [resource, action, ...rest] = grant.split(':');
  return rest.length === 0 && action === '*' && RESOURCES.has(resource);
}

/** Does one grant cover the required permission? `*` matches a whole segment only. */
export function grantCovers(grant: string, required: string): boolean {
  if (grant === '*' || grant === required) return true;
  const [gRes, gAct] = grant.split(':');
  const [rRes] = required.split(':');
  return gAct === '*' && gRes === rRes;
}

export function hasPermission(grants: Iterable<string>, required: string): boolean {
  for (const g of grants) if (grantCovers(g, required)) return true;
  return false;
}

/** Every catalogue permission the grants cover: what `/auth/me` reports as effective permissions. */
export function expandGrants(grants: Iterable<string>): Permission[] {
  const list = [...grants];
  return PERMISSION_CATALOGUE.filter((p) => hasPermission(list, p));
}

/**
 * The grants a request authenticated by a key carries (SPEC §2, API key): the user's grants narrowed to the
 * key's list; null = all of the user's. A key grant the user covers whole stays as it is (`*` stays `*` for a
 * user holding `*`); otherwise only the catalogue permissions under it that the user holds remain. So a key
 * never carries more than its user, and a role change narrows it on the very next request.
 */
export function narrowGrants(userGrants: readonly string[], keyPermissions: readonly string[] | null): string[] {
  if (keyPermissions === null) return [...userGrants];
  const out = new Set<string>();
  for (const k of keyPermissions) {
    if (coversAll(userGrants, [k]).length === 0) out.add(k);
    else for (const p of PERMISSION_CATALOGUE) if (grantCovers(k, p) && hasPermission(userGrants, p)) out.add(p);
  }
  return [...out];
}

/** Does `holder` cover everything `wanted` covers? (no escalation: you can only hand out what you hold) */
export function coversAll(holder: Iterable<string>, wanted: Iterable<string>): string[] {
  const have = [...holder];
  const missing: string[] = [];
  for (const w of wanted) {
    const needed = w === '*' || w.endsWith(':*') ? PERMISSION_CATALOGUE.filter((p) => grantCovers(w, p)) : [w];
    if (w === '*' && !have.includes('*')) missing.push(w);
    else if (needed.some((n) => !hasPermission(have, n))) missing.push(w);
  }
  return missing;
}
