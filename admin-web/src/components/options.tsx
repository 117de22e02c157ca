// Shared pickers: actors and users as <option>s (loaded only when the user may read them).
import { useQuery } from 'urql';
import { graphql } from '../gql/index.js';
import { useSession } from '../lib/session.js';

const ActorOptionsDocument = graphql(`
  query ActorOptions($type: String) {
    actors(type: $type, limit: 100) {
      data { id name type }
    }
  }
`);

const UserOptionsDocument = graphql(`
  query UserOptions {
    users(status: "active", limit: 100) {
      data { id name type email }
    }
  }
`);

export function useActorOptions(type?: string) {
  const { can } = useSession();
  const [{ data }] = useQuery({ query: ActorOptionsDocument, variables: { type: type ?? null }, pause: !can('actors:read') });
  return data?.actors.data ?? [];
}

export function useUserOptions() {
  const { can } = useSession();
  const [{ data }] = useQuery({ query: UserOptionsDocument, pause: !can('users:read') });
  return data?.users.data ?? [];
}
