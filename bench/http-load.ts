// HTTP load with autocannon: each connection works on its own slice of tensions, bounded in time.
import autocannon from 'autocannon';
import { slice } from './lib/sizes.js';

export interface HttpResult {
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

export type Target =
  | { kind: 'rescore-rest'; ids: string[]; scores: Map<string, number> }
  | { kind: 'rescore-graphql'; ids: string[]; scores: Map<string, number> }
  | { kind: 'get'; ids: string[] }
  | { kind: 'history'; ids: string[] }
  /** GET /tensions/:id?asOfVersion=N: the stream folded up to version N (SPEC §15) */
  | { kind: 'as-of'; ids: string[]; version: number }
  /** GET /events?streamId=…&limit=100: a stream's page of the feed, from its start or from a cursor of each stream's (`after`) */
  | { kind: 'feed-stream'; ids: string[]; after?: Map<string, string> };

const RESCORE_GQL = `mutation($id: ID!, $input: RescoreTensionInput!) { rescoreTension(id: $id, input: $input) {
  tension { id name score state version updatedAt actor { id name } } event { version type summary summaryKey } } }`;

/** The next request of a connection: a random tension of its slice, with a score it does not have yet. */
function requestFor(target: Target, mine: string[]) {
  const id = mine[Math.floor(Math.random() * mine.length)];
  switch (target.kind) {
    case 'rescore-rest':
    case 'rescore-graphql': {
      const score = ((target.scores.get(id) ?? 5) % 10) + 1;
      target.scores.set(id, score);
      return target.kind === 'rescore-rest'
        ? { method: 'POST' as const, path: `/api/v1/tensions/${id}/rescore`, body: JSON.stringify({ score }) }
        : { method: 'POST' as const, path: '/graphql', body: JSON.stringify({ query: RESCORE_GQL, variables: { id, input: { score } } }) };
    }
    case 'get':
      return { method: 'GET' as const, path: `/api/v1/tensions/${id}` };
    case 'history':
      return { method: 'GET' as const, path: `/api/v1/tensions/${id}/history?limit=20` };
    case 'as-of':
      return { method: 'GET' as const, path: `/api/v1/tensions/${id}?asOfVersion=${target.version}` };
    case 'feed-stream': {
      const after = target.after?.get(id);
      return { method: 'GET' as const, path: `/api/v1/events?streamId=${id}&limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}` };
    }
  }
}

/** The clock both the load generator and the SSE subscribers' process read (the same wall clock, sub-ms). */
export const wallClock = () => performance.timeOrigin + performance.now();

/**
 * `onAppended` (REST rescore only): called with `<tension id>:<version>` of the event each 200 appended and
 * the time its body arrived here, an upper bound of the commit.
 */
export async function load(
  url: string,
  key: string,
  target: Target,
  connections: number,
  seconds: number,
  onAppended?: (event: string, at: number) => void,
): Promise<HttpResult> {
  let nextSlot = 0;
  let gqlErrors = 0;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    timeout: 30,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    setupClient(client) {
      const [from, to] = slice(target.ids.length, connections, nextSlot++);
      const mine = target.ids.slice(from, to);
      if (mine.length === 0) throw new Error(`${target.ids.length} tensions cannot give ${connections} connections one each`);
      client.setRequests([{ setupRequest: (req) => ({ ...req, ...requestFor(target, mine) }) }]);
      if (onAppended && target.kind === 'rescore-rest') {
        client.on('body', (body: Buffer) => {
          const at = wallClock();
          const res = JSON.parse(body.toString('utf8'));
          if (res?.tension?.id && res.event?.version) onAppended(`${res.tension.id}:${res.event.version}`, at);
        });
      }
      if (target.kind === 'rescore-graphql') {
        // A GraphQL refusal answers 200: count responses that carry errors as failures.
        client.on('body', (body: Buffer) => {
          if (body.includes('"errors"')) {
            gqlErrors++;
            if (gqlErrors === 1) console.error(`graphql error answer: ${body.toString('utf8').slice(0, 500)}`);
          }
        });
      }
    },
  });
  // autocannon stops at the deadline without waiting for requests still in the server; let them finish,
  // or the next load's first command on the same tension meets them as a concurrent writer (409).
  await new Promise((r) => setTimeout(r, 1000));
  return {
    connections,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx + gqlErrors,
    errors: result.errors + result.timeouts,
  };
}
