// The event feed under load (SPEC §10): REST rescore at 8 connections with 100 SSE subscribers connected
// against the same load with none (what the subscribers cost), and the lag from each appending request's
// 200 at the load generator to each subscriber receiving that event.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setPriority } from 'node:os';
import type { HttpResult } from './http-load.js';
import { fmt, median, ratioFigure, type Figure } from './report.js';
import type { LagSummary, SubscriberCommand, SubscriberReply } from './sse-subscribers.js';

export const SUBSCRIBERS = 100;
/** How long after the load every subscriber may take to receive every appended event before it counts as missing. */
const GRACE_MS = 10_000;

export interface FeedRound {
  /** REST rescore 8 connections, no subscriber */
  alone: HttpResult;
  /** the same with SUBSCRIBERS SSE subscribers connected */
  followed: HttpResult;
  lag: LagSummary;
}

/** A rescore load at 8 connections that reports each appended event's 200 arrival time. */
export type RecordedLoad = (onAppended: (event: string, at: number) => void, seconds?: number) => Promise<HttpResult>;

class Subscribers {
  private constructor(private readonly child: ChildProcess) {}

  static async start(url: string, keys: string[], count: number): Promise<Subscribers> {
    // Its own process: parsing 100 streams must not delay the load generator's event loop (nor its clock).
    const child = fork(new URL('./sse-subscribers.ts', import.meta.url).pathname, [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // The subscribers stand in for clients on other machines: their own parsing must not take CPU the
    // service would have had, so they run at the lowest priority and get what the machine leaves idle.
    // (Their lag then includes their own scheduling delay: an upper bound, never flattering.)
    if (child.pid !== undefined) setPriority(child.pid, 19);
    const s = new Subscribers(child);
    await s.ask({ cmd: 'start', url, keys, count }, 'ready');
    return s;
  }

  async ask<K extends SubscriberReply['kind']>(command: SubscriberCommand, kind: K): Promise<Extract<SubscriberReply, { kind: K }>> {
    const reply = new Promise<SubscriberReply>((resolve, reject) => {
      this.child.once('message', (m: SubscriberReply) => resolve(m));
      this.child.once('exit', (code) => reject(new Error(`SSE subscribers exited with ${code}`)));
    });
    this.child.send(command);
    const m = await reply;
    if (m.kind === 'error') throw new Error(`SSE subscribers: ${m.message}`);
    if (m.kind !== kind) throw new Error(`SSE subscribers answered ${m.kind}, not ${kind}`);
    return m as Extract<SubscriberReply, { kind: K }>;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.disconnect();
    await exited;
  }
}

/**
 * One round, in the order alone, followed, followed, alone, each for half the measurement time: this
 * machine's throughput drifts by tens of percent over a minute, and the mirrored order puts a steady
 * drift on both sides equally (measured alone-then-followed, the same code gave ratios from 0.7 to 1.5).
 */
export async function feedRound(url: string, readerKeys: string[], recordedLoad: RecordedLoad, seconds: number): Promise<FeedRound> {
  const half = seconds / 2;
  const quiet = () => recordedLoad(() => undefined, half);
  const before = await quiet();
  const subscribers = await Subscribers.start(url, readerKeys, SUBSCRIBERS);
  let followed: HttpResult;
  let lag: LagSummary;
  try {
    const responses: [string, number][] = [];
    const record = (event: string, at: number) => responses.push([event, at]);
    followed = inSequence(await recordedLoad(record, half), await recordedLoad(record, half));
    ({ summary: lag } = await subscribers.ask({ cmd: 'collect', responses, graceMs: GRACE_MS }, 'summary'));
  } finally {
    await subscribers.stop();
  }
  return { alone: inSequence(before, await quiet()), followed, lag };
}

/** Two equally long loads run one after the other, as one: rates and p50 averaged, p99 the worse of the two. */
function inSequence(a: HttpResult, b: HttpResult): HttpResult {
  return {
    connections: a.connections,
    rps: (a.rps + b.rps) / 2,
    p50: (a.p50 + b.p50) / 2,
    p99: Math.max(a.p99, b.p99),
    requests: a.requests + b.requests,
    non2xx: a.non2xx + b.non2xx,
    errors: a.errors + b.errors,
  };
}

export function feedFigures(rounds: FeedRound[]): Figure[] {
  if (rounds.length === 0) return [];
  const lags = rounds.map((r) => r.lag);
  const p99 = median(lags.map((l) => l.p99));
  const missing = lags.reduce((n, l) => n + l.missing + l.duplicates, 0);
  return [
    {
      name: `feed lag p50 / p99, 200 → SSE (${SUBSCRIBERS} subscribers, rescore 8)`,
      value: `${fmt(median(lags.map((l) => l.p50)))} / ${fmt(p99)} ms`,
      target: 'p99 <= 250 ms',
      pass: p99 <= 250,
    },
    { name: '  feed lag max; deliveries per round', value: `${fmt(median(lags.map((l) => l.max)))} ms; ${fmt(median(lags.map((l) => l.deliveries)))}` },
    {
      name: '  SSE deliveries missing or twice, all rounds',
      value: `${missing} of ${lags.reduce((n, l) => n + l.events * l.subscribers, 0)}`,
      target: '= 0',
      pass: missing === 0,
    },
    ratioFigure(
      `REST rescore 8 conns, ${SUBSCRIBERS} SSE subscribers vs none`,
      rounds.map((r) => r.followed.rps),
      rounds.map((r) => r.alone.rps),
      ' req/s',
      '>=',
      0.9,
    ),
    {
      name: '  with / without subscribers p99',
      value: `${fmt(median(rounds.map((r) => r.followed.p99)))} / ${fmt(median(rounds.map((r) => r.alone.p99)))} ms`,
    },
    { name: "  the subscribers' own process (bench side), CPU", value: fmt(median(lags.map((l) => l.cpuCores * 100)), ' % of a core') },
  ];
}

/** Every HTTP load of the feed rounds, for the non-2xx check. */
export const feedLoads = (rounds: FeedRound[]): HttpResult[] => rounds.flatMap((r) => [r.alone, r.followed]);
