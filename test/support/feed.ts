// Helpers for the event feed tests: follow the feed through REST pages, or through an SSE stream.
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { feedHub } from '../../server/application/events/feed-hub.js';
import type { FeedFilter } from '../../server/persistence/event-store.js';

export interface FeedEventJson {
  position: number;
  id: string;
  streamType: string;
  streamId: string;
  version: number;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  occurredAt: string;
}

/** One GET /events; fails the test on anything but 200. */
export async function feedPage(
  app: TestApp,
  key: string,
  query: Record<string, string | number | undefined>,
): Promise<{ data: FeedEventJson[]; nextCursor: string }> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
  const res = await fetch(`${app.url}/api/v1/events?${q}`, { headers: { authorization: `Bearer ${key}` } });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

/**
 * Resolves once `request` (a long poll) waits in the app's feed hub: a live follower there with `filter`
 * (no types and no stream by default), or has answered already (it found events at once and never waited).
 * What tests used to sleep 200–300 ms for.
 */
export async function untilWaiting(
  app: TestApp,
  request: Promise<unknown>,
  filter: { types?: string[]; streamId?: string } = {},
  timeoutMs = 30_000,
): Promise<void> {
  let answered = false;
  request.then(
    () => (answered = true),
    () => (answered = true),
  );
  const same = (f: FeedFilter) => (f.streamId ?? null) === (filter.streamId ?? null) && (f.types ?? []).join() === (filter.types ?? []).join();
  const waiting = () =>
    feedHub(app.deps)
      .followersNow()
      .some((f) => f.live && same(f.filter));
  for (const deadline = Date.now() + timeoutMs; !answered && !waiting(); await new Promise((r) => setTimeout(r, 5))) {
    if (Date.now() > deadline) throw new Error(`the long poll did not wait in the feed hub within ${timeoutMs} ms`);
  }
}

/** Every stream's versions, in the order received, must be 1, 2, 3… with no gap, repeat or reordering. */
export function expectEachStreamInOrder(events: FeedEventJson[]): void {
  const last = new Map<string, number>();
  for (const e of events) {
    const prev = last.get(e.streamId) ?? 0;
    expect(e.version, `stream ${e.streamId}: version ${e.version} after ${prev}`).toBe(prev + 1);
    last.set(e.streamId, e.version);
  }
}

export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

export interface SseConnection {
  status: number;
  headers: Headers;
  messages: SseMessage[];
  /** resolves when `predicate` holds over the messages so far (checked on every chunk) */
  until(predicate: (messages: SseMessage[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** resolves once the server ended the stream */
  ended: Promise<void>;
  close(): void;
}

/** Opens GET /events/stream and parses it as it arrives (the text/event-stream format, comments kept). */
export async function openSse(url: string, headers: Record<string, string>, init: { method?: string; body?: string } = {}): Promise<SseConnection> {
  const abort = new AbortController();
  const res = await fetch(url, { ...init, headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const messages: SseMessage[] = [];
  const waiters = new Set<() => void>();
  let buffer = '';
  let endedResolve!: () => void;
  const ended = new Promise<void>((r) => (endedResolve = r));
  if (res.status === 200 && res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const m: SseMessage = {};
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) m.comment = line.slice(1).trim();
              else {
                const i = line.indexOf(':');
                const field = line.slice(0, i);
                const value = line.slice(i + 1).replace(/^ /, '');
                if (field === 'id' || field === 'event') m[field] = value;
                if (field === 'data') m.data = m.data === undefined ? value : `${m.data}\n${value}`;
              }
            }
            messages.push(m);
          }
          for (const w of waiters) w();
        }
      } catch {
        // aborted by close()
      }
      endedResolve();
      for (const w of waiters) w();
    })();
  } else endedResolve();
  return {
    status: res.status,
    headers: res.headers,
    messages,
    ended,
    until(predicate, what, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (predicate(messages)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`SSE: ${what} not seen within ${timeoutMs} ms (${messages.length} messages)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => abort.abort(),
  };
}

export const eventsOf = (messages: SseMessage[]) => messages.filter((m) => m.data !== undefined).map((m) => JSON.parse(m.data!) as FeedEventJson);
