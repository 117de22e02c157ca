// The client's view of grants: which catalogue permissions a set of grants covers (SPEC §2 matching).
import { graphql } from '../gql/index.js';

export const PermissionCatalogueDocument = graphql(`
  query PermissionCatalogue {
    permissions
  }
`);

export function covers(grant: string, permission: string): boolean {
  if (grant === '*' || grant === permission) return true;
  const [gRes, gAct] = grant.split(':');
  return gAct === '*' && gRes === permission.split(':')[0];
}

export function expand(grants: string[], catalogue: string[]): string[] {
  return catalogue.filter((p) => grants.some((g) => covers(g, p)));
}
