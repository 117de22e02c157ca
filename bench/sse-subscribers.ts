// A child process of the bench (its own event loop, off the load generator's): `count` SSE subscribers of
// GET /api/v1/events/stream?after=now, each noting when every event arrived; on `collect` it matches them
// with the times the load generator received the appending requests' 200s and answers the lag summary.
// Times are performance.timeOrigin + performance.now() in both processes (the same wall clock, sub-ms).
import { request, type ClientRequest } from 'node:http';

export type SubscriberCommand =
  | { cmd: 'start'; url: string; key: string; count: number }
  /** responses: [event key, time its 200 arrived]; waits up to graceMs for every subscriber to have every key */
  | { cmd: 'collect'; responses: [string, number][]; graceMs: number };

export type SubscriberReply =
  | { kind: 'ready' }
  | { kind: 'error'; message: string }
  | { kind: 'summary'; summary: LagSummary };

export interface LagSummary {
  subscribers: number;
  /** appended events (a 200 at the load generator) */
  events: number;
  /** (event, subscriber) pairs received */
  deliveries: number;
  /** (event, subscriber) pairs never received within the grace time (an ended stream counts all its rest) */
  missing: number;
  /** events a subscriber received twice */
  duplicates: number;
  /** subscribers whose stream ended before the collect */
  ended: number;
  p50: number;
  p99: number;
  max: number;
  /** this process's CPU time over the wall time from ready to collect (1 = one core busy) */
  cpuCores: number;
}

const now = () => performance.timeOrigin + performance.now();
const KEY = /"streamId":"([0-9a-f-]{36})","version":(\d+)/;

interface Subscriber {
  req: ClientRequest;
  received: Map<string, number>;
  duplicates: number;
  ended: boolean;
}

const subscribers: Subscriber[] = [];
const send = (m: SubscriberReply) => process.send?.(m);

function subscribe(url: string, key: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/v1/events/stream?after=now`, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
    const s: Subscriber = { req, received: new Map(), duplicates: 0, ended: false };
    req.on('response', (res) => {
      if (res.statusCode !== 200) return reject(new Error(`SSE subscribe answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let buf = '';
      let connected = false;
      res.on('data', (chunk: string) => {
        const at = now();
        buf += chunk;
        let end: number;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const message = buf.slice(0, end);
          buf = buf.slice(end + 2);
          if (!connected && message.startsWith(': connected')) {
            connected = true;
            resolve(s);
            continue;
          }
          // Only what identifies the event (tension id, version); the rest of the JSON is not parsed.
          const m = KEY.exec(message);
          if (!m) continue;
          const k = `${m[1]}:${m[2]}`;
          if (s.received.has(k)) s.duplicates++;
          else s.received.set(k, at);
        }
      });
      res.on('close', () => (s.ended = true));
    });
    req.on('error', reject);
    req.end();
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

let cpuFrom = process.cpuUsage();
let wallFrom = now();

async function collect(responses: [string, number][], graceMs: number): Promise<LagSummary> {
  const deadline = now() + graceMs;
  const complete = () => subscribers.every((s) => s.ended || responses.every(([k]) => s.received.has(k)));
  while (!complete() && now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const cpu = process.cpuUsage(cpuFrom);
  const cpuCores = (cpu.user + cpu.system) / 1000 / (now() - wallFrom);
  const lags = new Float64Array(responses.length * subscribers.length);
  let n = 0;
  let missing = 0;
  for (const s of subscribers) {
    for (const [k, sent] of responses) {
      const at = s.received.get(k);
      if (at === undefined) missing++;
      else lags[n++] = at - sent;
    }
  }
  const sorted = lags.subarray(0, n).sort();
  return {
    subscribers: subscribers.length,
    events: responses.length,
    deliveries: n,
    missing,
    duplicates: subscribers.reduce((d, s) => d + s.duplicates, 0),
    ended: subscribers.filter((s) => s.ended).length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: n ? sorted[n - 1] : NaN,
    cpuCores,
  };
}

process.on('message', (m: SubscriberCommand) => {
  void (async () => {
    try {
      if (m.cmd === 'start') {
        // Connected a few at a time, as many clients would; all connected before the load starts.
        for (let i = 0; i < m.count; i += 10) {
          const batch = await Promise.all(Array.from({ length: Math.min(10, m.count - i) }, () => subscribe(m.url, m.key)));
          subscribers.push(...batch);
        }
        cpuFrom = process.cpuUsage();
        wallFrom = now();
        send({ kind: 'ready' });
      } else {
        send({ kind: 'summary', summary: await collect(m.responses, m.graceMs) });
      }
    } catch (err) {
      send({ kind: 'error', message: String(err) });
    }
  })();
});
process.on('disconnect', () => {
  for (const s of subscribers) s.req.destroy();
  process.exit(0);
});
