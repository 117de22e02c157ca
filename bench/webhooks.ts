// Webhooks under load (SPEC §14): REST rescore at 8 connections on a service that sends webhooks, with no
// endpoint, with 10 endpoints subscribed to every event, and with 9 of them beside a dead one (connection
// refused); what they cost of the rescore throughput, and the lag from each appending request's 200 at the
// load generator to each live receiver having that event. The receivers run in a child process of their
// own (bench/webhook-receivers.ts), at the lowest priority, like the feed's SSE subscribers.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import type { HttpResult } from './http-load.js';
import { Api } from './lib/api.js';
import { freePort } from './lib/service.js';
import { fmt, median, ratioFigure, type Figure } from './report.js';
import type { RecordedLoad } from './feed.js';
import type { ReceiverCommand, ReceiverReply, WebhookLag } from './webhook-receivers.js';
import type { SenderCommand, SenderReply } from './webhook-sender.js';

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
  /**
   * The machine's floor: the same load beside a process that only signs and POSTs each appended event to
   * the same receivers (no service, no database); what sending costs whatever the dispatcher's design.
   */
  floor: HttpResult;
  floorSent: SenderReply;
  /**
   * CPU milliseconds per appended event of every process of the system under test (the load generator, the
   * service, its PostgreSQL backends, the receivers, the sender), per phase: steadier than req/s on a shared
   * machine, where other work takes cores from the phases unevenly. On a machine of its own, saturated by the
   * load, throughput goes as the inverse of this cost.
   */
  cpuPerEvent: { alone: number; hooked: number; withDead: number; floor: number };
  /** the same without the receivers' CPU: what the phases cost the sending side alone (receivers elsewhere) */
  sendingCpuPerEvent: { alone: number; hooked: number; withDead: number; floor: number };
}

/** The processes whose CPU a phase is charged: the sending service and its PostgreSQL backends (the bench's own and its children are added). */
export type SystemPids = () => Promise<number[]>;

const TICK_MS = 1000 / 100; // USER_HZ
/** CPU ms (user + system) a process has spent; 0 when it is gone. */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** Runs `phase` and answers the CPU ms every process in `pids()` (before or after) and this process spent meanwhile, and of it the `apart` process's. */
async function charged<T>(pids: () => Promise<number[]>, phase: () => Promise<T>, apart?: number): Promise<{ value: T; cpuMs: number; apartMs: number }> {
  const before = new Map((await pids()).map((pid) => [pid, processCpuMs(pid)]));
  const self = process.cpuUsage();
  const value = await phase();
  const selfMs = (() => {
    const d = process.cpuUsage(self);
    return (d.user + d.system) / 1000;
  })();
  let cpuMs = selfMs;
  const after = new Set([...before.keys(), ...(await pids())]);
  // a process started during the phase (a new PostgreSQL backend) is charged all its CPU
  let apartMs = 0;
  for (const pid of after) {
    const now = processCpuMs(pid);
    // a process gone meanwhile (a backend closed) is not charged: its last figure cannot be read
    if (now === 0) continue;
    const spent = now - (before.get(pid) ?? 0);
    cpuMs += spent;
    if (pid === apart) apartMs += spent;
  }
  return { value, cpuMs, apartMs };
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

  get pid(): number {
    return this.child.pid ?? 0;
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
export async function webhookRound(
  url: string,
  recordedLoad: RecordedLoad,
  seconds: number,
  log: (s: string) => void,
  systemPids: SystemPids,
): Promise<WebhookRound> {
  const admin = await Api.loginAdmin(url);
  const receivers = await Receivers.start(ENDPOINTS);
  let senderPid: number | undefined;
  const pids = async () => [...(await systemPids()), receivers.pid, ...(senderPid === undefined ? [] : [senderPid])];
  const perEvent = (c: { value: { result: HttpResult } | HttpResult; cpuMs: number; apartMs: number }, withoutReceivers = false) => {
    const r = 'result' in c.value ? c.value.result : c.value;
    return (c.cpuMs - (withoutReceivers ? c.apartMs : 0)) / Math.max(1, r.requests);
  };
  try {
    const beforeC = await charged(pids, () => recordedLoad(() => undefined, seconds / 2), receivers.pid);
    const before = beforeC.value;

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
    const tenC = await charged(pids, () => phase(receivers.urls), receivers.pid);
    const ten = tenC.value;
    log(`  webhooks: 10 endpoints: ${Math.round(ten.result.rps)} req/s, lag p99 ${Math.round(ten.lag.p99)} ms (${ten.lag.missing} missing)`);
    // The dead one stays last in line, and its receiver's arrivals are not awaited: nothing goes there.
    const dead = `http://127.0.0.1:${await freePort()}/hook`;
    const withDeadC = await charged(pids, () => phaseWithDead(receivers, admin, recordedLoad, seconds, dead), receivers.pid);
    const withDead = withDeadC.value;
    await receivers.reset();
    const sender = await startSender(receivers.urls);
    senderPid = sender.pid;
    const floorC = await charged(pids, () => sender.beside((onAppended) => recordedLoad(onAppended, seconds)), receivers.pid).finally(() => sender.stop());
    const floor = floorC.value;
    senderPid = undefined;
    log(`  webhooks: floor (bare signed POSTs, ${floor.sent.sent} sent, ${floor.sent.answered} answered): ${Math.round(floor.result.rps)} req/s`);
    const afterC = await charged(pids, () => recordedLoad(() => undefined, seconds / 2), receivers.pid);
    const after = afterC.value;
    const cpuPerEvent = {
      alone: (beforeC.cpuMs + afterC.cpuMs) / Math.max(1, before.requests + after.requests),
      hooked: perEvent(tenC),
      withDead: perEvent(withDeadC),
      floor: perEvent(floorC),
    };
    const sendingCpuPerEvent = {
      alone: (beforeC.cpuMs - beforeC.apartMs + afterC.cpuMs - afterC.apartMs) / Math.max(1, before.requests + after.requests),
      hooked: perEvent(tenC, true),
      withDead: perEvent(withDeadC, true),
      floor: perEvent(floorC, true),
    };
    log(
      `  webhooks: CPU ms per event, all processes: alone ${cpuPerEvent.alone.toFixed(3)}, 10 endpoints ${cpuPerEvent.hooked.toFixed(3)}, ` +
        `9 + dead ${cpuPerEvent.withDead.toFixed(3)}, floor ${cpuPerEvent.floor.toFixed(3)}; ` +
        `without the receivers: 10 endpoints ${sendingCpuPerEvent.hooked.toFixed(3)}, floor ${sendingCpuPerEvent.floor.toFixed(3)}`,
    );
    return {
      cpuPerEvent,
      sendingCpuPerEvent,
      alone: inSequence(before, after),
      hooked: ten.result,
      lag: ten.lag,
      withDead: withDead.result,
      deadLag: withDead.lag,
      floor: floor.result,
      floorSent: floor.sent,
    };
  } finally {
    await receivers.stop();
  }
}

/**
 * A child process that signs and POSTs each appended event to every receiver (bench/webhook-sender.ts), started
 * and ready (its imports done) before `run` is called: `run` (the load, reporting each appended event) runs
 * beside it, which is told the count every 10 ms.
 */
async function startSender(urls: string[]) {
  const child = fork(new URL('./webhook-sender.ts', import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>() =>
    new Promise<T>((resolve, reject) => {
      child.once('message', (m: T) => resolve(m));
      child.once('exit', (code) => reject(new Error(`webhook sender exited with ${code}`)));
    });
  const tell = (m: SenderCommand) => child.send(m);
  const ready = next<{ kind: 'ready' }>();
  tell({ cmd: 'start', urls });
  await ready;
  return {
    pid: child.pid ?? 0,
    async beside(run: (onAppended: (event: string, at: number) => void) => Promise<HttpResult>) {
      let pending = 0;
      const flush = () => {
        if (pending > 0) tell({ cmd: 'events', count: pending });
        pending = 0;
      };
      const ticker = setInterval(flush, 10);
      try {
        const result = await run(() => void pending++);
        flush();
        const sent = next<SenderReply>();
        tell({ cmd: 'stop' });
        return { result, sent: await sent };
      } finally {
        clearInterval(ticker);
      }
    },
    stop: () => child.disconnect(),
  };
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
    ratioFigure(
      `  floor: the same beside bare signed POSTs of each event to ${ENDPOINTS} receivers (no service, no database) vs none`,
      rounds.map((r) => r.floor.rps),
      rounds.map((r) => r.alone.rps),
      ' req/s',
      '>=',
      COST_RATIO,
    ),
    cpuFigure(`CPU per event, all processes: ${ENDPOINTS} endpoints vs none (inverse ratio)`, rounds, 'hooked'),
    cpuFigure(`CPU per event, all processes: ${ENDPOINTS - 1} live + 1 dead vs none (inverse ratio)`, rounds, 'withDead'),
    cpuFigure(`  floor: CPU per event beside bare signed POSTs vs none (inverse ratio)`, rounds, 'floor'),
    cpuFigure(`CPU per event without the receivers' (elsewhere): ${ENDPOINTS} endpoints vs none (inverse ratio)`, rounds, 'hooked', 'sendingCpuPerEvent'),
    cpuFigure(`  floor without the receivers': bare signed POSTs vs none (inverse ratio)`, rounds, 'floor', 'sendingCpuPerEvent'),
    {
      name: '  floor: bare POSTs answered / sent, all rounds',
      value: `${rounds.reduce((n, r) => n + r.floorSent.answered, 0)} / ${rounds.reduce((n, r) => n + r.floorSent.sent, 0)}`,
    },
    {
      name: '  webhook deliveries missing or twice, all rounds',
      value: `${lost} of ${rounds.reduce((n, r) => n + r.lag.events * r.lag.receivers + r.deadLag.events * r.deadLag.receivers, 0)}`,
      target: '= 0',
      pass: lost === 0,
    },
  ];
}

/** alone ÷ phase CPU per event: the throughput ratio a machine of its own, saturated by the load, would see. */
function cpuFigure(
  name: string,
  rounds: WebhookRound[],
  phase: 'hooked' | 'withDead' | 'floor',
  of: 'cpuPerEvent' | 'sendingCpuPerEvent' = 'cpuPerEvent',
): Figure {
  const ratio = median(rounds.map((r) => r[of].alone / r[of][phase]));
  return {
    name,
    value: fmt(median(rounds.map((r) => r[of][phase])), ' ms', 3),
    against: fmt(median(rounds.map((r) => r[of].alone)), ' ms', 3),
    ratio,
    target: `>= ${COST_RATIO}`,
    pass: ratio >= COST_RATIO,
  };
}

export const webhookLoads = (rounds: WebhookRound[]): HttpResult[] => rounds.flatMap((r) => [r.alone, r.hooked, r.withDead, r.floor]);
