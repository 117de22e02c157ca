// One webhook attempt (SPEC §14): the destination checked again (after DNS resolution), the body signed
// as Standard Webhooks says, POSTed to the checked address with a 15-second limit, no redirect followed,
// and at most 1 KB of the answer kept.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkDestination, type Destination, type DestinationRules } from './destination.js';

export const ATTEMPT_TIMEOUT_MS = 15_000;
export const RESPONSE_BODY_MAX = 1024;
/** Attempts one instance runs at once to one endpoint (first attempts and retries); also the sockets kept open to it. */
export const PER_ENDPOINT = 8;

export interface Message {
  /** `webhook-id`: the event id (the same on every retry) */
  id: string;
  body: string;
  /** the secrets that sign it: the current one, and the previous one during a rotation's overlap */
  secrets: string[];
}

export interface AttemptResult {
  /** the answer's status; null when none came (not sent, refused connection, timeout) */
  status: number | null;
  body: string | null;
  error: string | null;
  durationMs: number;
  /** true when nothing was sent: the destination is not allowed (any more) */
  notSent: boolean;
}

/** The signing keys by secret, decoded once (a secret is `whsec_` + base64 of the key). */
const keys = new Map<string, Buffer>();
const keyOf = (secret: string): Buffer => {
  let key = keys.get(secret);
  if (!key) {
    // a rotation adds one; the map is emptied now and then rather than kept in order
    if (keys.size >= 1_000) keys.clear();
    key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
    keys.set(secret, key);
  }
  return key;
};

/**
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` for each secret, space-separated (Standard Webhooks), with
 * Node's crypto and each secret's key decoded once: what the `standardwebhooks` package computes, without its
 * JavaScript SHA-256 and its key decoding on every message.
 */
export function signatureHeader(message: Message, at: Date): string {
  const signed = `${message.id}.${Math.floor(at.getTime() / 1000)}.${message.body}`;
  return message.secrets.map((s) => `v1,${createHmac('sha256', keyOf(s)).update(signed).digest('base64')}`).join(' ');
}

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: PER_ENDPOINT }),
  https: new https.Agent({ keepAlive: true, maxSockets: PER_ENDPOINT }),
};

export type Allowed = Extract<Destination, { ok: true }>;

/** Checks the destination (after DNS resolution) and POSTs the message there. */
export async function attempt(
  url: string,
  message: Message,
  rules: DestinationRules,
  opts: { timeoutMs?: number; now?: () => Date } = {},
): Promise<AttemptResult> {
  const started = performance.now();
  const destination = await checkDestination(url, rules);
  if (!destination.ok) return notSent(destination.reason, started);
  return post(destination, message, opts, started);
}

/** The answer for a destination that is not allowed (any more): nothing was sent. */
export const notSent = (reason: string, started: number): AttemptResult => ({
  status: null,
  body: null,
  error: `not sent: the URL ${reason}`,
  durationMs: Math.round(performance.now() - started),
  notSent: true,
});

/**
 * POSTs the message to a destination just checked. The request is started before this returns (the
 * promise's executor runs at once), so calls made one after another start their requests in that order.
 */
export function post(
  destination: Allowed,
  message: Message,
  opts: { timeoutMs?: number; now?: () => Date } = {},
  started = performance.now(),
): Promise<AttemptResult> {
  const elapsed = () => Math.round(performance.now() - started);
  const { address } = destination;
  // Connect to the address just checked, not to a second resolution (which could answer differently).
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };
  const at = (opts.now ?? (() => new Date()))();
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(message.body)),
    'user-agent': 'market-service-webhooks/1',
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatureHeader(message, at),
  };
  const secure = destination.url.protocol === 'https:';
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<AttemptResult, 'durationMs' | 'notSent'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, durationMs: elapsed(), notSent: false });
    };
    const req = (secure ? https : http).request(destination.url, { method: 'POST', headers, lookup, agent: secure ? agents.https : agents.http }, (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const done = () => {
        const status = res.statusCode ?? 0;
        // PostgreSQL text cannot hold NUL
        const body = Buffer.concat(chunks).toString('utf8').replaceAll('\u0000', '');
        const redirect = status >= 300 && status < 400;
        finish({
          status,
          body,
          error: redirect ? `answered ${status}: redirects are not followed` : status >= 200 && status < 300 ? null : `answered ${status}`,
        });
      };
      res.on('data', (c: Buffer) => {
        if (kept < RESPONSE_BODY_MAX) {
          const part = c.subarray(0, RESPONSE_BODY_MAX - kept);
          chunks.push(part);
          kept += part.length;
        }
        if (kept >= RESPONSE_BODY_MAX) {
          // Enough kept: the rest is not read (a huge answer costs nothing).
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('error', () => done());
    });
    const timer = setTimeout(() => {
      finish({ status: null, body: null, error: `no answer within ${(opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS) / 1000} s` });
      req.destroy();
    }, opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS);
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish({ status: null, body: null, error: err.code ? `connection failed: ${err.code}` : 'connection failed' }),
    );
    req.end(message.body);
  });
}
