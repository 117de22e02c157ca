// The signed-in operator: who they are and what they may do (effective permissions from `me`).
import { createContext, useContext } from 'react';
import { graphql } from '../gql/index.js';
import type { MeQuery } from '../gql/graphql.js';

export const MeDocument = graphql(`
  query Me {
    me {
      user { id name email type }
      roles { id code name }
      permissions
      authenticatedBy
    }
  }
`);

export type Me = MeQuery['me'];

interface SessionValue {
  me: Me;
  can(permission: string): boolean;
  logout(): Promise<void>;
}

export const SessionContext = createContext<SessionValue | null>(null);

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionContext');
  return value;
}
