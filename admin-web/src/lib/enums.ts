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

/** REST's sort (`-score`, kept in the URL) as the GraphQL enum (`score_desc`); unknown → the default. */
export function asTensionSort(sort: string | null | undefined): TensionSort {
  const column = (sort ?? '').replace(/^-/, '');
  const value = (sort ?? '').startsWith('-') ? `${column}_desc` : column;
  return (
    pick<TensionSort>([
      'score',
      'score_desc',
      'updatedAt',
      'updatedAt_desc',
      'createdAt',
      'createdAt_desc',
      'name',
      'name_desc',
      'state',
      'state_desc',
      'actor',
      'actor_desc',
      'lead',
      'lead_desc',
    ])(value) ?? 'score_desc'
  );
}
