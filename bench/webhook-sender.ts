// A child process of the webhook bench: the machine's floor for sending webhooks, with no service and no
// database. It signs Standard Webhooks messages exactly as server/application/webhooks/sender.ts does (one
// HMAC-SHA256 per message, Node's crypto, the key decoded once) and POSTs them over kept-alive sockets (8 per
// receiver, as the dispatcher keeps) to the bench's receivers: each event the load appends, to every receiver.
// Beside the rescore load it prices what 10 endpoints cost a machine whatever the dispatcher's design: the
// sending and the receiving alone. It answers how many it sent and how many were answered.
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';

/** `start`: the receivers; `events`: so many more events appended (each goes to every receiver); `stop`: answer when all are answered. */
export type SenderCommand = { cmd: 'start'; urls: string[] } | { cmd: 'events'; count: number } | { cmd: 'stop' };
export interface SenderReply {
  kind: 'sent';
  sent: number;
  answered: number;
  failed: number;
}

const KEY = Buffer.from('bench-webhook-ceiling-secret-0123456789');
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
/** a TensionRescored message as the service sends it (about the same size) */
const body = (streamId: string, version: number) =>
  JSON.stringify({
    type: 'TensionRescored',
    timestamp: new Date().toISOString(),
    data: {
      id: randomUUID(),
      type: 'TensionRescored',
      position: String(version),
      streamType: 'tension',
      streamId,
      version,
      occurredAt: new Date().toISOString(),
      data: { score: 6, previousScore: 5 },
      metadata: { actorKind: 'agent', userId: randomUUID(), userName: 'bench agent', apiKeyId: randomUUID(), apiKeyName: 'bench', via: 'rest' },
    },
  });

function post(url: URL, id: string, payload: string): Promise<boolean> {
  const at = Math.floor(Date.now() / 1000);
  const signature = `v1,${createHmac('sha256', KEY).update(`${id}.${at}.${payload}`).digest('base64')}`;
  return new Promise((resolve) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(payload)),
          'user-agent': 'market-service-webhooks/1',
          'webhook-id': id,
          'webhook-timestamp': String(at),
          'webhook-signature': signature,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve((res.statusCode ?? 0) < 300));
      },
    );
    req.on('error', () => resolve(false));
    req.end(payload);
  });
}

let targets: URL[] = [];
const streamId = randomUUID();
let events = 0;
let sent = 0;
let answered = 0;
let failed = 0;
const inFlight = new Set<Promise<void>>();
/** sockets kept per receiver, as the dispatcher's PER_ENDPOINT */
const capPerTarget = 8;

/** Sends what is due: each appended event to every receiver, at most capPerTarget at once per receiver. */
function pump(): void {
  while (sent < events * targets.length && inFlight.size < capPerTarget * targets.length) {
    const target = targets[sent % targets.length];
    const p = post(target, randomUUID(), body(streamId, Math.floor(sent / targets.length) + 1)).then((ok) => {
      if (ok) answered++;
      else failed++;
      inFlight.delete(p);
      pump();
    });
    inFlight.add(p);
    sent++;
  }
}

process.on('message', (m: SenderCommand) => {
  if (m.cmd === 'start') {
    targets = m.urls.map((u) => new URL(u));
    process.send!({ kind: 'ready' });
  } else if (m.cmd === 'events') {
    events += m.count;
    pump();
  } else {
    const finish = async () => {
      while (sent < events * targets.length || inFlight.size > 0) await Promise.race([...inFlight, new Promise((r) => setTimeout(r, 10))]);
      process.send!({ kind: 'sent', sent, answered, failed } satisfies SenderReply);
    };
    void finish();
  }
});
process.on('disconnect', () => process.exit(0));
