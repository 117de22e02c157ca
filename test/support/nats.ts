// The real NATS server (with JetStream) every machine of this project runs on 127.0.0.1:4222. Each test
// run uses its own stream and subject prefix, and deletes its stream afterwards.
import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

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

