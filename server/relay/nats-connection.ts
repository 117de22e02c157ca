// A NATS connection kept up for as long as its owner wants it: the first connection is retried in the
// background (a service starts, and serves, while NATS is down), and once connected the client reconnects
// for ever (its default gives up after 10 attempts, about 20 s, and then stays closed). Should the client
// close anyway (an authorization error aborts its reconnect loop), a new one is dialled.
import { setTimeout as delay } from 'node:timers/promises';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../logger.js';

interface NatsLinkOptions {
  /** comma-separated server URLs */
  url: string;
  /** the client name NATS shows in its monitoring */
  name: string;
  logger: Logger;
  /** the wait between attempts (connect and reconnect), ± a quarter of it as jitter; default 2000 ms */
  reconnectWaitMs?: number;
  /** called on every change of state (connected, disconnected, closed) */
  onChange(): void;
}

interface NatsLink {
  /** the connection while it is up; undefined while connecting, reconnecting or closed */
  current(): NatsConnection | undefined;
  /** closes the connection and stops connecting */
  close(): Promise<void>;
}

/** A dead server is noticed within pingInterval × (maxPingOut + 1) when no socket error says so first. */
const PING_INTERVAL_MS = 10_000;
const MAX_PING_OUT = 2;
/** How long one dial may take before it counts as failed (an unreachable host, not a refused port). */
const DIAL_TIMEOUT_MS = 5_000;
/** While NATS stays unreachable, one warning per this many failed attempts (the first always). */
const WARN_EVERY = 30;

export function keepNatsConnected(opts: NatsLinkOptions): NatsLink {
  const waitMs = opts.reconnectWaitMs ?? 2_000;
  const jitter = () => Math.round((Math.random() - 0.5) * (waitMs / 2));
  const servers = opts.url
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const log = opts.logger;
  const stop = new AbortController();
  let nc: NatsConnection | undefined;
  let up = false;
  const set = (value: boolean) => {
    up = value;
    opts.onChange();
  };

  const run = async () => {
    let failures = 0;
    while (!stop.signal.aborted) {
      let c: NatsConnection;
      try {
        c = await connect({
          servers,
          name: opts.name,
          timeout: DIAL_TIMEOUT_MS,
          maxReconnectAttempts: -1,
          reconnectTimeWait: waitMs,
          reconnectJitter: Math.floor(waitMs / 4),
          pingInterval: PING_INTERVAL_MS,
          maxPingOut: MAX_PING_OUT,
        });
      } catch (err) {
        if (failures++ % WARN_EVERY === 0) log.warn({ err, attempts: failures }, 'relay: NATS unreachable; retrying until it answers');
        await delay(waitMs + jitter(), undefined, { signal: stop.signal }).catch(() => undefined);
        continue;
      }
      if (stop.signal.aborted) {
        await c.close();
        break;
      }
      failures = 0;
      nc = c;
      log.info({ server: c.getServer() }, 'relay: connected to NATS');
      set(true);
      // The iterator ends when the connection closes.
      for await (const s of c.status()) {
        if (s.type === 'disconnect') {
          log.warn({ server: s.server }, 'relay: disconnected from NATS; not publishing while it reconnects');
          set(false);
        } else if (s.type === 'reconnect') {
          log.info({ server: s.server }, 'relay: reconnected to NATS');
          set(true);
        }
      }
      const err = await c.closed();
      nc = undefined;
      set(false);
      if (stop.signal.aborted) break;
      log.warn({ err }, 'relay: the NATS connection closed; connecting again');
      await delay(waitMs + jitter(), undefined, { signal: stop.signal }).catch(() => undefined);
    }
  };
  const running = run();

  return {
    current: () => (up ? nc : undefined),
    async close() {
      stop.abort();
      // Nothing waits for acknowledgements any more, so nothing needs draining (and a drain waits for ever while disconnected).
      await nc?.close().catch(() => undefined);
      await running;
    },
  };
}
