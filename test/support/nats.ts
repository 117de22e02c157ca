// The real NATS server (with JetStream) every machine of this project runs on 127.0.0.1:4222. Each test
// run uses its own stream and subject prefix, and deletes its stream afterwards. Tests that stop NATS
// run a private server of their own (`privateNats`).
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { expect } from 'vitest';
import { freePort } from './process.js';

export const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** A connection, or null with the reason when no NATS answers (the tests then skip, saying why). */
export async function natsOrNull(): Promise<{ nc: NatsConnection } | { reason: string }> {
  try {
    return { nc: await connect({ servers: NATS_URL, timeout: 2_000, reconnect: false }) };
  } catch (err) {
    return { reason: `no NATS with JetStream at ${NATS_URL} (${(err as Error).message})` };
  }
}

export function testStream(): { stream: string; prefix: string } {
  const tag = randomBytes(5).toString('hex');
  return { stream: `FEEDTEST_${tag.toUpperCase()}`, prefix: `feedtest.${tag}` };
}

export interface StoredMessage {
  seq: number;
  subject: string;
  msgId: string | undefined;
  body: { id: string; streamId: string; version: number; type: string; streamType: string };
}

/** Every message the stream holds, in stream order (direct reads by sequence; no consumer state left behind). */
export async function streamMessages(nc: NatsConnection, stream: string): Promise<StoredMessage[]> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(stream);
  const out: StoredMessage[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (!m) continue;
    out.push({ seq, subject: m.subject, msgId: m.header?.get('Nats-Msg-Id') ?? undefined, body: m.json() });
  }
  return out;
}

export async function deleteStream(nc: NatsConnection, stream: string): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(stream).catch(() => undefined);
}

const NATS_SERVER_BIN = '/usr/sbin/nats-server';

/** A NATS server (JetStream on, a store folder of its own) a test may stop and start again on the same port and store. */
export interface PrivateNats {
  url: string;
  /** starts it (again) and resolves once JetStream answers */
  start(): Promise<void>;
  /** SIGTERM (JetStream flushes its store) and wait for the exit */
  stop(): Promise<void>;
  /** stops it and removes its store */
  close(): Promise<void>;
}

/** Why private NATS servers cannot run here, or null when they can. */
export const privateNatsUnavailable = (): string | null => (existsSync(NATS_SERVER_BIN) ? null : `no ${NATS_SERVER_BIN} to run a private NATS server`);

/** A private server on a free port, not yet started (`start()` it). */
export async function privateNats(): Promise<PrivateNats> {
  const port = await freePort();
  const storeDir = await mkdtemp(join(tmpdir(), 'nats-store-'));
  const url = `nats://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let output = '';
  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await exited;
  };
  return {
    url,
    async start() {
      if (child) return;
      output = '';
      const c = spawn(NATS_SERVER_BIN, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: ['ignore', 'pipe', 'pipe'] });
      c.stdout.on('data', (d) => (output += d));
      c.stderr.on('data', (d) => (output += d));
      child = c;
      for (const deadline = Date.now() + 20_000; ; await new Promise((r) => setTimeout(r, 100))) {
        if (c.exitCode !== null) throw new Error(`nats-server exited (${c.exitCode}):\n${output}`);
        try {
          const nc = await connect({ servers: url, timeout: 1_000, reconnect: false });
          try {
            await (await jetstreamManager(nc)).getAccountInfo();
            return;
          } finally {
            await nc.close();
          }
        } catch (err) {
          if (Date.now() > deadline) throw new Error(`nats-server not ready on ${url}: ${(err as Error).message}\n${output}`, { cause: err });
        }
      }
    },
    stop,
    async close() {
      await stop();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}

/** Exactly the events of the store (in the store's feed order), once each: `Nats-Msg-Id` = id, subject `<prefix>.tension.<type>`. */
export function expectExactlyOnceInOrder(messages: StoredMessage[], events: { id: string }[], prefix: string): void {
  expect(
    messages.map((m) => m.msgId),
    'Nats-Msg-Id is the event id',
  ).toEqual(messages.map((m) => m.body.id));
  const ids = messages.map((m) => m.body.id);
  expect(
    ids.filter((id, i) => ids.indexOf(id) !== i),
    'no event stored twice',
  ).toEqual([]);
  expect(ids, 'every event, in feed order').toEqual(events.map((e) => e.id));
  for (const m of messages) expect(m.subject).toBe(`${prefix}.tension.${m.body.type}`);
}
