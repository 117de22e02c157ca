// Owns the urql client and the session: a fresh client (empty cache) on every sign-in and
// sign-out, and the login page whenever the server says the caller is not authenticated.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Provider, useClient, useMutation, useQuery } from 'urql';
import { createClient } from './lib/client.js';
import { MeDocument, SessionContext } from './lib/session.js';
import { errorCode } from './lib/errors.js';
import { graphql } from './gql/index.js';
import { ErrorAlert, Loading } from './components/ui.js';
import { LoginPage } from './pages/login.js';
import { Shell, startRequest } from './shell.js';
import { useRouter } from './lib/router.js';
import { startPageRequest } from './lib/prefetch.js';

export type Notice = 'expired' | 'loggedOut' | null;

const LogoutDocument = graphql(`
  mutation Logout {
    logout
  }
`);

export function SessionRoot() {
  const [epoch, setEpoch] = useState(0);
  const [notice, setNotice] = useState<Notice>(null);
  const signedIn = useRef(false);
  const restart = useCallback((next: Notice) => {
    signedIn.current = false;
    setNotice(next);
    setEpoch((e) => e + 1);
  }, []);
  // called by the client when the server answers "unauthenticated": only a session that was live has expired
  const onUnauthenticated = useCallback(() => {
    if (signedIn.current) restart('expired');
  }, [restart]);
  const markSignedIn = useCallback(() => {
    signedIn.current = true;
  }, []);
  const client = useMemo(
    // the callback reads the ref only when urql's exchange sees an answer, never during render
    // eslint-disable-next-line react-hooks/refs
    () => createClient(onUnauthenticated),
    // a new client per epoch: nothing cached for one user is shown to the next
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [epoch],
  );
  return (
    <Provider value={client}>
      <Session key={epoch} notice={notice} markSignedIn={markSignedIn} restart={restart} />
    </Provider>
  );
}

function Session({ notice, markSignedIn, restart }: { notice: Notice; markSignedIn: () => void; restart: (n: Notice) => void }) {
  const [{ data, error, fetching }, refetch] = useQuery({ query: MeDocument, requestPolicy: 'network-only' });
  // the page's list goes out beside `me`, not after it (no waterfall at the start); only the page shows it
  const client = useClient();
  const { location } = useRouter();
  const [startLocation] = useState(location);
  useEffect(() => {
    const request = startRequest(startLocation);
    if (request) startPageRequest(client, request);
  }, [client, startLocation]);
  const [, logout] = useMutation(LogoutDocument);
  const value = useMemo(() => {
    if (!data?.me) return null;
    const granted = new Set(data.me.permissions);
    return {
      me: data.me,
      can: (p: string) => granted.has(p),
      logout: async () => {
        await logout({});
        restart('loggedOut');
      },
    };
  }, [data, logout, restart]);
  useEffect(() => {
    if (value) markSignedIn();
  }, [value, markSignedIn]);
  if (value) {
    return (
      <SessionContext.Provider value={value}>
        <Shell />
      </SessionContext.Provider>
    );
  }
  if (fetching && !error)
    return (
      <div className="center-page">
        <Loading />
      </div>
    );
  if (error && errorCode(error) !== 'UNAUTHENTICATED') {
    return (
      <div className="center-page">
        <ErrorAlert error={error} onRetry={() => refetch({ requestPolicy: 'network-only' })} />
      </div>
    );
  }
  return <LoginPage notice={notice} onSignedIn={() => restart(null)} />;
}
