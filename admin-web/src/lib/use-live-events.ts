// Live updates: follows `subscription { tensionEvents }` (GraphQL over SSE, the session cookie and the
// CSRF header like every request) and calls `onEvent` for each event; reconnects after a drop from the
// last cursor it saw, so nothing is missed or repeated. State: 'live', 'connecting', or 'off' (the user
// may not read the feed, or the browser cannot stream).
import { useEffect, useRef, useState } from 'react';

export type LiveState = 'live' | 'connecting' | 'off';

export interface LiveEvent {
  cursor: string;
  event: { id: string; type: string; streamId: string; version: number; metadata: { userId?: string | null } };
}

// A plain document (not in the codegen set): the hook reads the SSE stream itself, outside urql.
const SUBSCRIPTION = `subscription LiveTensionEvents($after: String, $streamId: ID) {
  tensionEvents(after: $after, streamId: $streamId) { cursor event { id type streamId version metadata } }
}`;

const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 15_000;

export function useLiveEvents(opts: { streamId?: string; onEvent: (e: LiveEvent) => void }): LiveState {
  const [state, setState] = useState<LiveState>('connecting');
  const onEvent = useRef(opts.onEvent);
  onEvent.current = opts.onEvent;

  useEffect(() => {
    let stopped = false;
    let abort: AbortController | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let after = 'now';
    let retryMs = RETRY_MIN_MS;

    const run = async () => {
      abort = new AbortController();
      setState('connecting');
      try {
        // A concrete cursor for "now" first: a reconnect then resumes from it, and a change made while
        // the stream was down (before any event reached this page) is delivered, not skipped.
        if (after === 'now') {
          const head = await fetch('/graphql', {
            method: 'POST',
            credentials: 'same-origin',
            headers: { 'content-type': 'application/json', 'X-CSRF-Protection': '1' },
            body: JSON.stringify({ query: 'query LiveFeedHead { events(after: "now", limit: 1) { nextCursor } }' }),
            signal: abort.signal,
          });
          const body = (await head.json()) as { data?: { events: { nextCursor: string } }; errors?: unknown[] };
          if (body.errors?.length || !body.data) {
            stopped = true;
            setState('off');
            return;
          }
          after = body.data.events.nextCursor;
        }
        const res = await fetch('/graphql', {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'X-CSRF-Protection': '1' },
          body: JSON.stringify({ query: SUBSCRIPTION, variables: { after, streamId: opts.streamId ?? null } }),
          signal: abort.signal,
        });
        if (!res.ok || !res.body) throw new Error(`status ${res.status}`);
        setState('live');
        retryMs = RETRY_MIN_MS;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const data = block
              .split('\n')
              .filter((l) => l.startsWith('data:'))
              .map((l) => l.slice(5).trim())
              .join('\n');
            if (!block.startsWith('event: next') || !data) continue;
            const payload = JSON.parse(data) as { data?: { tensionEvents: LiveEvent }; errors?: { extensions?: { code?: string } }[] };
            if (payload.errors?.length) {
              // FORBIDDEN (no events:read) or UNAUTHENTICATED: no live updates on this page
              stopped = true;
              setState('off');
              return;
            }
            if (payload.data) {
              after = payload.data.tensionEvents.cursor;
              onEvent.current(payload.data.tensionEvents);
            }
          }
        }
      } catch {
        // a network drop, the server restarting: retry below
      }
      if (stopped) return;
      setState('connecting');
      timer = setTimeout(() => {
        timer = undefined;
        void run();
      }, retryMs);
      retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
    };
    // the browser is online again: reconnect now rather than after the pause (which may have grown to 15 s)
    const onOnline = () => {
      if (stopped || timer === undefined) return;
      clearTimeout(timer);
      timer = undefined;
      retryMs = RETRY_MIN_MS;
      void run();
    };
    window.addEventListener('online', onOnline);
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
      window.removeEventListener('online', onOnline);
      abort?.abort();
    };
  }, [opts.streamId]);

  return state;
}
