// A child process of the bench (its own event loop, off the load generator's): `count` SSE subscribers of
// GET /api/v1/events/stream?after=now, each noting when every event arrived; on `collect` it matches them
// with the times the load generator received the appending requests' 200s and answers the lag summary.
// Times are performance.timeOrigin + performance.now() in both processes (the same wall clock, sub-ms).
import { request, type ClientRequest } from 'node:http';

export type SubscriberCommand =
  | { cmd: 'start'; url: string; keys: string[]; count: number }
  /** responses: [event key, time its 200 arrived]; waits up to graceMs for every subscriber to have every key */
  | { cmd: 'collect'; responses: [string, number][]; graceMs: number };

export type SubscriberReply = { kind: 'ready' } | { kind: 'error'; message: string } | { kind: 'summary'; summary: LagSummary };

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

/**
 * The subscribers stand in for clients on other machines, yet share this machine's 2 cores with the
 * service: the less CPU they take per message, the more the figure is the service's. So messages are
 * read as bytes (no text decoding, no regular expression): one search for the event's tension id, one
 * for the message's end, and one string per message, the event's key. Each key is numbered once for the
 * whole process, and a subscriber keeps one arrival time per event number, not a map of its own.
 */
const STREAM_ID = Buffer.from('"streamId":"');
const VERSION = '","version":';
const END = Buffer.from('\n\n');
const CONNECTED = Buffer.from(': connected');
const UUID = 36;
const QUOTE = 0x22;
/** An event's key as it stands in its message: `<tension id>","version":<version>`. */
const keyOf = (event: string) => event.replace(':', VERSION);
/** event key → its number in this process */
const numbers = new Map<string, number>();

interface Subscriber {
  req: ClientRequest;
  connected: boolean;
  /** arrival time by event number; NaN: not (yet) received */
  times: Float64Array;
  duplicates: number;
  ended: boolean;
}

const subscribers: Subscriber[] = [];
const send = (m: SubscriberReply) => process.send?.(m);

function arrived(s: Subscriber, key: string, at: number): void {
  let n = numbers.get(key);
  if (n === undefined) numbers.set(key, (n = numbers.size));
  if (n >= s.times.length) {
    const grown = new Float64Array(Math.max(2 * s.times.length, n + 1)).fill(NaN);
    grown.set(s.times);
    s.times = grown;
  }
  if (Number.isNaN(s.times[n])) s.times[n] = at;
  else s.duplicates++;
}

/**
 * The messages complete in `buf`; answers where the incomplete rest begins. Only what identifies an
 * event (its tension id and version, the first `"streamId":"` of its message) is read; messages without
 * one (heartbeats) are passed over.
 */
function readMessages(s: Subscriber, buf: Buffer, at: number, from: number): number {
  for (;;) {
    const id = buf.indexOf(STREAM_ID, from);
    if (id < 0) {
      const last = buf.lastIndexOf(END);
      return last >= from ? last + END.length : from;
    }
    const idEnd = id + STREAM_ID.length + UUID;
    let versionEnd = idEnd + VERSION.length;
    while (buf[versionEnd] >= 0x30 && buf[versionEnd] <= 0x39) versionEnd++;
    const end = versionEnd < buf.length ? buf.indexOf(END, versionEnd) : -1;
    if (end < 0) return from;
    if (buf[idEnd] === QUOTE) arrived(s, buf.toString('latin1', id + STREAM_ID.length, versionEnd), at);
    from = end + END.length;
  }
}

function subscribe(url: string, key: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/v1/events/stream?after=now`, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
    const s: Subscriber = { req, connected: false, times: new Float64Array(1024).fill(NaN), duplicates: 0, ended: false };
    req.on('response', (res) => {
      if (res.statusCode !== 200) return reject(new Error(`SSE subscribe answered ${res.statusCode}`));
      let rest: Buffer | undefined;
      res.on('data', (chunk: Buffer) => {
        const at = now();
        const buf = rest ? Buffer.concat([rest, chunk]) : chunk;
        let from = 0;
        if (!s.connected) {
          // the stream's first message, before any event
          const end = buf.indexOf(END);
          if (end < 0) return void (rest = buf);
          if (buf.compare(CONNECTED, 0, CONNECTED.length, 0, Math.min(end, CONNECTED.length)) !== 0) {
            req.destroy();
            return reject(new Error('the SSE stream did not start with ": connected"'));
          }
          s.connected = true;
          resolve(s);
          from = end + END.length;
        }
        const done = readMessages(s, buf, at, from);
        rest = done < buf.length ? buf.subarray(done) : undefined;
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
  const keyed = responses.map(([k, sent]): [string, number] => [keyOf(k), sent]);
  const received = (s: Subscriber, k: string) => {
    const n = numbers.get(k);
    return n !== undefined && n < s.times.length && !Number.isNaN(s.times[n]);
  };
  const complete = () => subscribers.every((s) => s.ended || keyed.every(([k]) => received(s, k)));
  while (!complete() && now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const cpu = process.cpuUsage(cpuFrom);
  const cpuCores = (cpu.user + cpu.system) / 1000 / (now() - wallFrom);
  const lags = new Float64Array(responses.length * subscribers.length);
  let n = 0;
  let missing = 0;
  for (const s of subscribers) {
    for (const [k, sent] of keyed) {
      if (!received(s, k)) missing++;
      else lags[n++] = s.times[numbers.get(k)!] - sent;
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
          const batch = await Promise.all(Array.from({ length: Math.min(10, m.count - i) }, (_, j) => subscribe(m.url, m.keys[(i + j) % m.keys.length])));
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
