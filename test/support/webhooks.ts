// Real webhook receivers on 127.0.0.1 for the webhook tests, and a dispatcher with a clock the test controls.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import type { MikroORM } from '@mikro-orm/postgresql';
import { startWebhookDispatcher, type DispatcherOptions, type RunningDispatcher } from '../../server/application/webhooks/dispatcher.js';
import { createLogger } from '../../server/logger.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** the n-th request this receiver got, from 1 */
  n: number;
}

/** What the receiver answers a request: a status (and body), or no answer at all (`hang`). */
export type Answer = { status: number; body?: string; headers?: Record<string, string>; delayMs?: number } | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** the webhook-ids received, in order */
  ids(): string[];
  close(): Promise<void>;
}

export async function startReceiver(answer: (r: Received) => Answer = () => ({ status: 204 })): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), n: received.length + 1 };
      received.push(r);
      const a = answer(r);
      if (a === 'hang') return;
      setTimeout(() => {
        res.writeHead(a.status, a.headers ?? {});
        res.end(a.body ?? '');
      }, a.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    ids: () => received.map((r) => String(r.headers['webhook-id'])),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether a receiver holding `secret` accepts the message, as the standardwebhooks library decides. */
export function verifies(secret: string, r: Received): boolean {
  try {
    new Webhook(secret).verify(r.body, {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

/** A clock the test moves: starts at the real time and stands still until moved. */
export function testClock(start = Date.now()) {
  let now = start;
  return { clock: () => new Date(now), advance: (ms: number) => void (now += ms), set: (ms: number) => void (now = ms), now: () => now };
}

export function dispatcher(orm: MikroORM, opts: Partial<DispatcherOptions> & Pick<DispatcherOptions, 'clock'>): RunningDispatcher {
  return startWebhookDispatcher({
    orm,
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    allowPrivate: true,
    concurrency: 16,
    pollMs: 50,
    jitter: 0,
    ...opts,
  });
}

/** Polls `check` until it holds (or throws after `timeoutMs`). */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
