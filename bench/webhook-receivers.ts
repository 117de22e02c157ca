// A child process of the bench (its own event loop, off the load generator's): `count` webhook receivers
// on 127.0.0.1, each answering 204 at once and noting when each event (`<tension id>:<version>`) arrived.
// On `collect` it matches them with the times the load generator received the appending requests' 200s
// and answers the lag summary over every (event, live receiver) pair. Times are performance.timeOrigin +
// performance.now() in both processes (the same wall clock, sub-ms).
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';

export type ReceiverCommand =
  | { cmd: 'start'; count: number }
  /** forget what arrived (a new phase) */
  | { cmd: 'reset' }
  /** responses: [event key, time its 200 arrived]; waits up to graceMs for every receiver to have every key */
  | { cmd: 'collect'; responses: [string, number][]; graceMs: number };

export type ReceiverReply =
  { kind: 'ready'; urls: string[] } | { kind: 'reset' } | { kind: 'error'; message: string } | { kind: 'summary'; summary: WebhookLag };

export interface WebhookLag {
  receivers: number;
  /** appended events (a 200 at the load generator) */
  events: number;
  /** (event, receiver) pairs received */
  deliveries: number;
  missing: number;
  /** (event, receiver) pairs received more than once */
  duplicates: number;
  p50: number;
  p99: number;
  max: number;
  /** from the last 200 of the load until every receiver had every event (0 when they already had) */
  drainMs: number;
}

const now = () => performance.timeOrigin + performance.now();
const STREAM_ID = '"streamId":"';
const VERSION = '"version":';

const servers: Server[] = [];
/** per receiver: event key → first arrival */
let arrivals: Map<string, number>[] = [];
let duplicates = 0;

/** The event's key from the Standard Webhooks body `{type, timestamp, data: {streamId, version, …}}`, read without parsing it all. */
function keyOf(body: string): string | null {
  const s = body.indexOf(STREAM_ID);
  const v = body.indexOf(VERSION, s);
  if (s < 0 || v < 0) return null;
  const id = body.slice(s + STREAM_ID.length, s + STREAM_ID.length + 36);
  return `${id}:${Number.parseInt(body.slice(v + VERSION.length, v + VERSION.length + 12), 10)}`;
}

async function start(count: number): Promise<string[]> {
  arrivals = Array.from({ length: count }, () => new Map());
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const mine = i;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = now();
        const key = keyOf(Buffer.concat(chunks).toString('utf8'));
        if (key) {
          const seen = arrivals[mine];
          if (seen.has(key)) duplicates++;
          else seen.set(key, at);
        }
        res.writeHead(204).end();
      });
    });
    server.keepAliveTimeout = 60_000;
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
    urls.push(`http://127.0.0.1:${(server.address() as { port: number }).port}/hook`);
  }
  return urls;
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN);

async function collect(responses: [string, number][], graceMs: number): Promise<WebhookLag> {
  const complete = () => arrivals.every((seen) => responses.every(([k]) => seen.has(k)));
  for (const deadline = now() + graceMs; !complete() && now() < deadline;) await new Promise((r) => setTimeout(r, 100));
  const lags: number[] = [];
  let missing = 0;
  let lastArrival = 0;
  for (const seen of arrivals) {
    for (const [k, sent] of responses) {
      const at = seen.get(k);
      if (at === undefined) missing++;
      else {
        lags.push(at - sent);
        lastArrival = Math.max(lastArrival, at);
      }
    }
  }
  lags.sort((a, b) => a - b);
  const lastSent = responses.reduce((m, [, at]) => Math.max(m, at), 0);
  return {
    receivers: arrivals.length,
    events: responses.length,
    deliveries: lags.length,
    missing,
    duplicates,
    p50: percentile(lags, 50),
    p99: percentile(lags, 99),
    max: lags.length ? lags[lags.length - 1] : NaN,
    drainMs: Math.max(0, lastArrival - lastSent),
  };
}

process.on('message', (m: ReceiverCommand) => {
  const reply = (r: ReceiverReply) => process.send!(r);
  const run = async () => {
    if (m.cmd === 'start') reply({ kind: 'ready', urls: await start(m.count) });
    else if (m.cmd === 'reset') {
      for (const seen of arrivals) seen.clear();
      duplicates = 0;
      reply({ kind: 'reset' });
    } else reply({ kind: 'summary', summary: await collect(m.responses, m.graceMs) });
  };
  run().catch((err: unknown) => reply({ kind: 'error', message: (err as Error).message }));
});
process.on('disconnect', () => {
  for (const s of servers) s.close();
  for (const s of servers) s.closeAllConnections();
  process.exit(0);
});
