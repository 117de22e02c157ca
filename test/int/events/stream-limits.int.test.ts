// SPEC §7 budgets of the event feed's open faces: a user holds at most 20 open streams and long polls at
// once (429 past that; per instance), a client that stops reading is dropped once 1 MB waits for it, and
// requests on one keep-alive connection leave no listener behind on its socket (issue 29, 30).
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, systemCtx, unwrap, type SeededUser } from '../../support/clients.js';
import { newActor, newTension } from '../../support/tensions.js';
import { feedPage, openSse, untilWaiting, type SseConnection } from '../../support/feed.js';
import { provisionApiKey } from '../../../server/application/users/api-keys.js';
import { feedHub } from '../../../server/application/events/feed-hub.js';
import { MAX_STREAMS_PER_USER } from '../../../server/application/events/stream-guard.js';

let app: TestApp;
let writer: ReturnType<typeof client>;
let actorId: string;

beforeAll(async () => {
  app = await startTestApp();
  writer = client(app, (await seedUserWithKey(app, { grants: ['tensions:*', 'actors:*'] })).key);
  actorId = await newActor(writer, 'Limits org');
});
afterAll(async () => {
  await app?.close();
});

const GRANTS = ['events:read', 'tensions:read'];
const SUBSCRIPTION = `subscription { tensionEvents(after: "now") { cursor } }`;

const sse = (key: string) => openSse(`${app.url}/api/v1/events/stream?after=now`, { authorization: `Bearer ${key}` });
const subscription = (key: string) =>
  openSse(
    `${app.url}/graphql`,
    { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    { method: 'POST', body: JSON.stringify({ query: SUBSCRIPTION }) },
  );

/** A long poll of up to 30 s; `answer` settles when it answers (or is aborted). */
function longPoll(key: string, types = 'TensionDiscarded') {
  const abort = new AbortController();
  const answer = fetch(`${app.url}/api/v1/events?after=now&wait=30&types=${types}`, { headers: { authorization: `Bearer ${key}` }, signal: abort.signal }).then(
    async (res) => ({
      status: res.status,
      headers: res.headers,
      body: await res.json(),
    }),
  );
  answer.catch(() => undefined);
  return { answer, close: () => abort.abort() };
}

async function until(done: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('at most 20 open streams and long polls per user (SPEC §7)', () => {
  it("the 21st — SSE, subscription or long poll, with any of the user's keys — is 429 rate_limited with Retry-After; closing one frees a slot; others are not affected", async () => {
    const u = await seedUserWithKey(app, { grants: GRANTS });
    const secondKey = unwrap(await provisionApiKey(app.deps, systemCtx(), u.userId, { name: 'second' }), 'second key').key;
    const sses: SseConnection[] = [];
    const subs: SseConnection[] = [];
    const polls: ReturnType<typeof longPoll>[] = [];
    const followersBefore = feedHub(app.deps).size;
    try {
      for (let i = 0; i < 8; i++) sses.push(await sse(u.key));
      for (let i = 0; i < 6; i++) subs.push(await subscription(i % 2 ? secondKey : u.key));
      // (only the last wakes on a new tension; the others wait for discards)
      for (let i = 0; i < 6; i++) polls.push(longPoll(u.key, i === 5 ? 'TensionSensed' : 'TensionDiscarded'));
      expect([...sses, ...subs].map((s) => s.status)).toEqual(Array(14).fill(200));
      // the long polls count from their start; they wait as followers of the hub
      await until(() => feedHub(app.deps).size === followersBefore + 20, 'the long polls waiting');
      const over = await sse(secondKey);
      expect(over.status).toBe(429);
      const problem = await fetch(`${app.url}/api/v1/events/stream?after=now`, { headers: { authorization: `Bearer ${u.key}` } });
      expect(problem.status).toBe(429);
      expect(problem.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(Number(problem.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await problem.json()).toMatchObject({ status: 429, code: 'rate_limited', requestId: expect.any(String) });

      const poll = await longPoll(secondKey).answer;
      expect(poll.status).toBe(429);
      expect(poll.body.code).toBe('rate_limited');
      expect(Number(poll.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

      const sub = await subscription(u.key);
      await sub.until((m) => m.some((x) => x.event === 'next'), 'a refusal');
      expect(JSON.parse(sub.messages.find((x) => x.event === 'next')!.data!).errors[0].extensions).toMatchObject({
        code: 'RATE_LIMITED',
        retryAfterSeconds: expect.any(Number),
      });
      expect(Number(sub.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      sub.close();

      // a page (wait=0) is no stream: still served
      expect((await feedPage(app, u.key, { after: 'now' })).nextCursor).toEqual(expect.any(String));
      // another user is not affected
      const other = await seedUserWithKey(app, { grants: GRANTS });
      const theirs = await sse(other.key);
      expect(theirs.status).toBe(200);
      theirs.close();

      // closing one frees its slot (bounded wait: the server learns of the close from the socket)
      sses.pop()!.close();
      let again: SseConnection | undefined;
      await until(async () => {
        again?.close();
        again = await sse(u.key);
        return again.status === 200;
      }, 'a slot freed by the close');
      sses.push(again!);
      // and a long poll that answers frees its own: make one answer with an event
      const t = await newTension(writer, { name: 'Wakes the polls', actorId });
      const answered = await polls.pop()!.answer;
      expect(answered.status).toBe(200);
      expect(answered.body.data.some((e: { streamId: string }) => e.streamId === t.id)).toBe(true);
      let afterPoll: SseConnection | undefined;
      await until(async () => {
        afterPoll?.close();
        afterPoll = await sse(u.key);
        return afterPoll.status === 200;
      }, "the answered poll's slot");
      sses.push(afterPoll!);
      expect((await sse(u.key)).status).toBe(429);
    } finally {
      for (const s of [...sses, ...subs]) s.close();
      for (const p of polls) p.close();
    }
  });

  it('every slot comes back: after closing all 20, the user opens 20 again', async () => {
    const u = await seedUserWithKey(app, { grants: GRANTS });
    const first = await Promise.all(Array.from({ length: MAX_STREAMS_PER_USER }, () => sse(u.key)));
    expect(first.map((s) => s.status)).toEqual(Array(MAX_STREAMS_PER_USER).fill(200));
    for (const s of first) s.close();
    const second: SseConnection[] = [];
    try {
      await until(
        async () => {
          const s = await sse(u.key);
          if (s.status === 200) second.push(s);
          else s.close();
          return second.length === MAX_STREAMS_PER_USER;
        },
        '20 streams again',
        10_000,
      );
      expect((await sse(u.key)).status).toBe(429);
    } finally {
      for (const s of second) s.close();
    }
  });
});

describe('a client that stops reading (SPEC §7)', () => {
  it('is dropped once 1 MB waits for it: the server destroys its socket (freeing what it buffered) and its slot; a reading client keeps its stream', async () => {
    const u: SeededUser = await seedUserWithKey(app, { grants: GRANTS });
    const url = new URL(app.url);
    const serverSockets = new Map<number, Socket>();
    const onConnection = (s: Socket) => serverSockets.set(s.remotePort!, s);
    app.server.on('connection', onConnection);
    const slow = connect(Number(url.port), url.hostname);
    await new Promise((r) => slow.once('connect', r));
    slow.write(
      `GET /api/v1/events/stream?after=now&types=TensionSensed HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${u.key}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    const head = await new Promise<string>((r) => slow.once('data', (d: Buffer) => r(d.toString())));
    // never read again: the kernel's buffers fill, then the server's
    slow.pause();
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    const reader = await sse(u.key);
    const followersBefore = feedHub(app.deps).size;
    const serverSide = serverSockets.get(slow.localPort!)!;
    app.server.off('connection', onConnection);
    expect(serverSide).toBeDefined();
    const big = 'x'.repeat(10_000);
    let written = 0;
    try {
      // ~20 KB an event; up to 40 MB (far past any kernel buffer) before giving up
      const deadline = Date.now() + 80_000;
      for (let i = 0; i < 2_000 && !serverSide.destroyed && Date.now() < deadline; i += 4) {
        await Promise.all([0, 1, 2, 3].map((k) => newTension(writer, { name: `Heavy ${i + k}`, actorId, currentContext: big, potentialFuture: big })));
        written += 4 * 20_000;
      }
      console.log(`slow reader: ~${(written / 1e6).toFixed(1)} MB of events written; its socket ${serverSide.destroyed ? 'dropped' : 'still open'}`);
      expect(serverSide.destroyed, "the slow reader's socket destroyed").toBe(true);
      // destroy() sets `destroyed` at once; the write libuv has in flight is cancelled, and its bytes freed, when the handle closes
      await until(() => serverSide.writableLength === 0, 'the dropped socket freeing what it buffered');
      // (at most: streams of the test before may still be closing)
      await until(() => feedHub(app.deps).size <= followersBefore - 1, "the dropped reader's follower gone");
      // the reading client kept its stream, and saw the events
      expect(reader.messages.filter((m) => m.event === 'TensionSensed').length).toBeGreaterThan(0);
      // the slot came back: 19 more fit beside the reader
      const more = await Promise.all(Array.from({ length: MAX_STREAMS_PER_USER - 1 }, () => sse(u.key)));
      try {
        expect(more.map((s) => s.status)).toEqual(Array(MAX_STREAMS_PER_USER - 1).fill(200));
      } finally {
        for (const s of more) s.close();
      }
    } finally {
      reader.close();
      slow.destroy();
    }
  }, 120_000);
});

describe('no listener left behind on a keep-alive connection (issue 29, 30)', () => {
  it('pages and long polls (woken and timed out) on one keep-alive socket: its close listeners do not grow, and no MaxListenersExceededWarning', async () => {
    const u = await seedUserWithKey(app, { grants: GRANTS });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    // the server's side of the agent's connection(s) (other clients, such as the writer, connect too)
    const serverSockets = new Map<number, Socket>();
    const onConnection = (s: Socket) => serverSockets.set(s.remotePort!, s);
    const agentPorts = new Set<number>();
    app.server.on('connection', onConnection);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const get = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${app.url}${path}`, { agent, headers: { authorization: `Bearer ${u.key}` } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('socket', (sock: Socket) => (sock.localPort ? agentPorts.add(sock.localPort) : sock.once('connect', () => agentPorts.add(sock.localPort!))));
        req.on('error', reject);
        req.end();
      });
    try {
      const counts: number[] = [];
      const closeListeners = () => [...agentPorts].map((p) => serverSockets.get(p)?.listenerCount('close') ?? 0).reduce((a, b) => a + b, 0);
      for (let i = 0; i < 30; i++) {
        expect(await get('/api/v1/events?after=now')).toBe(200);
        counts.push(closeListeners());
      }
      for (let i = 0; i < 20; i++) {
        // half time out, half are woken by a commit
        const poll = get(`/api/v1/events?after=now&wait=1&types=TensionSensed`);
        if (i % 2) {
          await untilWaiting(app, poll, { types: ['TensionSensed'] });
          await newTension(writer, { name: `Wake ${i}`, actorId });
        }
        expect(await poll).toBe(200);
        counts.push(closeListeners());
      }
      expect(agentPorts.size, 'every request went over one connection').toBe(1);
      expect(serverSockets.has([...agentPorts][0]), "the server's side of it is watched").toBe(true);
      expect(Math.max(...counts), `close listeners after each request: ${counts.join(',')}`).toBe(counts[0]);
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => /MaxListeners/.test(w))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      app.server.off('connection', onConnection);
      agent.destroy();
    }
  }, 60_000);
});
