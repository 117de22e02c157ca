// Webhooks under load (SPEC §14): REST rescore at 8 connections on a service that sends webhooks, with no
// endpoint, with 10 endpoints subscribed to every event, and with 9 of them beside a dead one (connection
// refused); what they cost of the rescore throughput, and the lag from each appending request's 200 at the
// load generator to each live receiver having that event. The receivers run in a child process of their
// own (bench/webhook-receivers.ts), at the lowest priority, like the feed's SSE subscribers.
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import type { HttpResult } from './http-load.js';
import { Api } from './lib/api.js';
import { freePort } from './lib/service.js';
import { fmt, median, ratioFigure, type Figure } from './report.js';
import type { RecordedLoad } from './feed.js';
import type { ReceiverCommand, ReceiverReply, WebhookLag } from './webhook-receivers.js';

export const ENDPOINTS = 10;
const GRACE_MS = 30_000;
/** the targets of issue 33 */
const LAG_P99_MS = 500;
const COST_RATIO = 0.9;

export interface WebhookRound {
  /** REST rescore 8 connections, no endpoint */
  alone: HttpResult;
  /** the same with ENDPOINTS live endpoints */
  hooked: HttpResult;
  lag: WebhookLag;
  /** the same with ENDPOINTS - 1 live endpoints and one whose port refuses connections */
  withDead: HttpResult;
  deadLag: WebhookLag;
}

class Receivers {
  private constructor(
    private readonly child: ChildProcess,
    readonly urls: string[],
  ) {}

  static async start(count: number): Promise<Receivers> {
    const child = fork(new URL('./webhook-receivers.ts', import.meta.url).pathname, [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // They stand in for systems on other machines: what the machine leaves idle, not the service's CPU.
    if (child.pid !== undefined) setPriority(child.pid, 19);
    const ready = await ask(child, { cmd: 'start', count }, 'ready');
    return new Receivers(child, ready.urls);
  }

  reset = () => ask(this.child, { cmd: 'reset' }, 'reset');
  collect = async (responses: [string, number][]) => (await ask(this.child, { cmd: 'collect', responses, graceMs: GRACE_MS }, 'summary')).summary;

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.disconnect();
    await exited;
  }
}

async function ask<K extends ReceiverReply['kind']>(child: ChildProcess, command: ReceiverCommand, kind: K): Promise<Extract<ReceiverReply, { kind: K }>> {
  const reply = new Promise<ReceiverReply>((resolve, reject) => {
    child.once('message', (m: ReceiverReply) => resolve(m));
    child.once('exit', (code) => reject(new Error(`webhook receivers exited with ${code}`)));
  });
  child.send(command);
  const m = await reply;
  if (m.kind === 'error') throw new Error(`webhook receivers: ${m.message}`);
  if (m.kind !== kind) throw new Error(`webhook receivers answered ${m.kind}, not ${kind}`);
  return m as Extract<ReceiverReply, { kind: K }>;
}

/** Creates one endpoint per URL (each receives every event from now on) and answers a function that deletes them. */
async function endpoints(admin: Api, urls: string[]): Promise<() => Promise<void>> {
  const ids: string[] = [];
  for (const url of urls) ids.push((await admin.call<{ id: string }>('POST', '/webhooks', { url, description: 'bench' })).id);
  return async () => {
    for (const id of ids) await admin.call('DELETE', `/webhooks/${id}`, undefined, [204]);
  };
}

/**
 * One round: alone, 10 endpoints, 9 + a dead one, alone again (each half the time), so a drift of the
 * machine's throughput over the round weighs on both sides alike. `recordedLoad` runs against the service
 * whose dispatcher sends (WEBHOOK_ALLOW_PRIVATE=true, the receivers are on 127.0.0.1).
 */
export async function webhookRound(url: string, recordedLoad: RecordedLoad, seconds: number, log: (s: string) => void): Promise<WebhookRound> {
  const admin = await Api.loginAdmin(url);
  const receivers = await Receivers.start(ENDPOINTS);
  try {
    const before = await recordedLoad(() => undefined, seconds / 2);

    const phase = async (urls: string[]) => {
      await receivers.reset();
      const drop = await endpoints(admin, urls);
      try {
        const responses: [string, number][] = [];
        const result = await recordedLoad((event, at) => responses.push([event, at]), seconds);
        return { result, lag: await receivers.collect(responses) };
      } finally {
        await drop();
      }
    };
    const ten = await phase(receivers.urls);
    log(`  webhooks: 10 endpoints: ${Math.round(ten.result.rps)} req/s, lag p99 ${Math.round(ten.lag.p99)} ms (${ten.lag.missing} missing)`);
    // The dead one stays last in line, and its receiver's arrivals are not awaited: nothing goes there.
    const dead = `http://127.0.0.1:${await freePort()}/hook`;
    const withDead = await phaseWithDead(receivers, admin, recordedLoad, seconds, dead);
    const after = await recordedLoad(() => undefined, seconds / 2);
    return { alone: inSequence(before, after), hooked: ten.result, lag: ten.lag, withDead: withDead.result, deadLag: withDead.lag };
  } finally {
    await receivers.stop();
  }
}

/** 9 live endpoints and a dead one; the lag is over the 9 live receivers (the 10th receiver gets nothing and is left out). */
async function phaseWithDead(receivers: Receivers, admin: Api, recordedLoad: RecordedLoad, seconds: number, dead: string) {
  await receivers.reset();
  const live = receivers.urls.slice(0, ENDPOINTS - 1);
  const drop = await endpoints(admin, [...live, dead]);
  try {
    const responses: [string, number][] = [];
    const result = await recordedLoad((event, at) => responses.push([event, at]), seconds);
    const lag = await receivers.collect(responses);
    // the 10th receiver had no endpoint: all its pairs are "missing" by construction
    const liveLag = { ...lag, receivers: live.length, missing: lag.missing - responses.length };
    return { result, lag: liveLag };
  } finally {
    await drop();
  }
}

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

export function webhookFigures(rounds: WebhookRound[]): Figure[] {
  if (rounds.length === 0) return [];
  const p99 = median(rounds.map((r) => r.lag.p99));
  const deadP99 = median(rounds.map((r) => r.deadLag.p99));
  const lost = rounds.reduce((n, r) => n + r.lag.missing + r.lag.duplicates + r.deadLag.missing + r.deadLag.duplicates, 0);
  return [
    ratioFigure(
      `REST rescore 8 conns, ${ENDPOINTS} webhook endpoints (every event) vs none`,
      rounds.map((r) => r.hooked.rps),
      rounds.map((r) => r.alone.rps),
      ' req/s',
      '>=',
      COST_RATIO,
    ),
    {
      name: `  webhook lag p50 / p99, 200 → receiver (${ENDPOINTS} endpoints, rescore 8)`,
      value: `${fmt(median(rounds.map((r) => r.lag.p50)))} / ${fmt(p99)} ms`,
      target: `p99 <= ${LAG_P99_MS} ms`,
      pass: p99 <= LAG_P99_MS,
    },
    { name: '  webhooks drained after the load stopped', value: fmt(median(rounds.map((r) => r.lag.drainMs)), ' ms') },
    ratioFigure(
      `REST rescore 8 conns, ${ENDPOINTS - 1} live + 1 dead endpoint vs none`,
      rounds.map((r) => r.withDead.rps),
      rounds.map((r) => r.alone.rps),
      ' req/s',
      '>=',
      COST_RATIO,
    ),
    {
      name: `  webhook lag p50 / p99 of the ${ENDPOINTS - 1} live beside a dead one`,
      value: `${fmt(median(rounds.map((r) => r.deadLag.p50)))} / ${fmt(deadP99)} ms`,
      target: `p99 <= ${LAG_P99_MS} ms`,
      pass: deadP99 <= LAG_P99_MS,
    },
    {
      name: '  webhook deliveries missing or twice, all rounds',
      value: `${lost} of ${rounds.reduce((n, r) => n + r.lag.events * r.lag.receivers + r.deadLag.events * r.deadLag.receivers, 0)}`,
      target: '= 0',
      pass: lost === 0,
    },
  ];
}

export const webhookLoads = (rounds: WebhookRound[]): HttpResult[] => rounds.flatMap((r) => [r.alone, r.hooked, r.withDead]);
