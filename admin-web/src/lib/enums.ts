// URL and form strings → the API's enums: a value the API does not know becomes "no filter", never a request error.
import type { ActorType, TensionSort, TensionState, UserStatus, UserType } from '../gql/graphql';

const pick =
  <T extends string>(allowed: readonly T[]) =>
  (value: string | null | undefined): T | null =>
    allowed.includes(value as T) ? (value as T) : null;

export const asTensionState = pick<TensionState>(['alive', 'resolved', 'stale']);
export const asActorType = pick<ActorType>(['organization', 'individual', 'virtual', 'agent']);
export const asUserType = pick<UserType>(['human', 'agent']);
export const asUserStatus = pick<UserStatus>(['active', 'deactivated']);

/** A sort as REST and the app's URL write it: `-score` for GraphQL's `score_desc`. */
export type RestSort = TensionSort extends infer S ? (S extends `${infer C}_desc` ? `-${C}` : S) : never;

/**
 * Every sort the API offers, in the order the sort control lists them. Typed against the generated
 * `TensionSort`: a sort the server adds and this list lacks fails the type-check (`Unoffered` below), as does
 * one the server no longer has, or one without its label in every language.
 */
export const TENSION_SORTS = [
  '-score',
  'score',
  '-updatedAt',
  'updatedAt',
  '-createdAt',
  'createdAt',
  'name',
  '-name',
  'state',
  '-state',
  'actor',
  '-actor',
  'lead',
  '-lead',
] as const satisfies readonly RestSort[];
type Unoffered = Exclude<RestSort, (typeof TENSION_SORTS)[number]>;
const everySortOffered: [Unoffered] extends [never] ? true : Unoffered = true;
void everySortOffered;

/** REST's sort (`-score`, kept in the URL; GraphQL's spelling `score_desc` is read too) as the GraphQL enum; unknown → the default. */
export function asTensionSort(sort: string | null | undefined): TensionSort {
  const value = sort ?? '';
  const rest = value.endsWith('_desc') ? `-${value.slice(0, -'_desc'.length)}` : value;
  if (!(TENSION_SORTS as readonly string[]).includes(rest)) return 'score_desc';
  return (rest.startsWith('-') ? `${rest.slice(1)}_desc` : rest) as TensionSort;
}
