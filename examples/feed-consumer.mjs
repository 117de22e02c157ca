#!/usr/bin/env node
// A runnable consumer of the market service's events in NATS JetStream (docs/events.md).
// Reads the stream from its start with an ordered consumer and prints one line per event:
//   <stream sequence> <subject> <Nats-Msg-Id> <tension id> v<version>
// Environment: NATS_URL (default nats://127.0.0.1:4222), NATS_STREAM (default MARKET_EVENTS),
// (the relay publishes to subjects under NATS_SUBJECT_PREFIX, default market.events).
// Stops after IDLE_MS (default 2000) without a new message, or runs for ever with IDLE_MS=0.
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';

const servers = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const stream = process.env.NATS_STREAM ?? 'MARKET_EVENTS';
const idleMs = Number(process.env.IDLE_MS ?? 2000);

const nc = await connect({ servers });
const js = jetstream(nc);
// An ordered consumer: ephemeral, in stream order, no acks to manage; a real service would use a
// durable consumer (and its acks) to resume where it stopped.
// (the stream holds only `<prefix>.>`; filter with `filter_subjects` on NATS ≥ 2.10 to take a part of it)
const consumer = await js.consumers.get(stream);
const messages = await consumer.consume();
let timer;
const idle = () => {
  if (!idleMs) return;
  clearTimeout(timer);
  timer = setTimeout(() => messages.stop(), idleMs);
};
idle();
for await (const m of messages) {
  const event = m.json();
  console.log(`${m.seq} ${m.subject} ${m.headers?.get('Nats-Msg-Id')} ${event.streamId} v${event.version}`);
  idle();
}
await nc.close();
