// Tells this page's own changes from everyone else's on a tension's live feed, exactly: by the versions the
// commands' answers name, never by how long an answer takes.
import { useCallback, useEffect, useRef } from 'react';

/** What a tension command answers with: the history entry it appended names the version it wrote. */
interface Answer {
  error?: unknown;
  event?: { version: number } | null;
}

/**
 * `loaded`: the version the page last read from the server (everything up to it is on screen). An event is
 * the page's own when one of its commands answered with that version; `reload` runs for any other event
 * above `loaded`. An event that arrives while a command of the page is still unanswered (the feed can be
 * faster than the answer) waits for the answer, and is judged then.
 */
export function useOwnChanges(loaded: number, reload: () => void) {
  const latestLoaded = useRef(loaded);
  const reloadRef = useRef(reload);
  useEffect(() => {
    latestLoaded.current = Math.max(latestLoaded.current, loaded);
    reloadRef.current = reload;
  });
  const own = useRef(new Set<number>());
  const inFlight = useRef(0);
  const held = useRef<number[]>([]);

  const known = (version: number) => version <= latestLoaded.current || own.current.has(version);
  const judge = (versions: number[]) => {
    if (versions.some((v) => !known(v))) reloadRef.current();
  };

  const onEvent = useCallback((version: number) => {
    if (known(version)) return;
    if (inFlight.current > 0) held.current.push(version);
    else reloadRef.current();
  }, []);

  /** Sends a command through here, so its answer's version counts as the page's own. */
  const track = useCallback(async <T extends Answer>(send: () => Promise<T>): Promise<T> => {
    inFlight.current++;
    try {
      const answer = await send();
      if (answer.event) own.current.add(answer.event.version);
      return answer;
    } finally {
      inFlight.current--;
      if (inFlight.current === 0) {
        const waiting = held.current;
        held.current = [];
        judge(waiting);
      }
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return { onEvent, track };
}
