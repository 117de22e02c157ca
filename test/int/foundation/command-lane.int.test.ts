// The command lane (server/http/command-lane.ts): a tension command over REST with a bearer key is answered
// outside Express's layers, and what a client gets is what Express's path gives. Two apps, the service's
// (lane on) and one with every request through Express (`commandLane: false`), each on its own database,
// play the same requests; their answers must be equal but for the ids and times each made. Then what the
// lane leaves to Express, and the rate limit both lanes share.
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { newActor, newTension, streamOf } from '../../support/tensions.js';
import { paddedJson } from '../../support/raw-http.js';
import { comparable, laneCount, send as sendTo, suiteSide, withFailingWrites, type Answer, type Side } from '../../support/lanes.js';
import { BODY_LIMIT_BYTES } from '../../../server/http/body.js';
import { formatApiKey } from '../../../server/domain/api-key.js';

/** A request to the REST facade, `path` under /api/v1. */
const send = (app: TestApp, method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<Answer> =>
  sendTo(app, method, `/api/v1${path}`, headers, body);

const lane = suiteSide(true);
const plain = suiteSide(false);

type Step = { name: string; method?: string; path: (id: string) => string; headers?: Record<string, string>; body?: string; as?: 'writer' | 'reader' };

const json = { 'content-type': 'application/json' };
const STEPS: Step[] = [
  { name: 'a rescore that appends', path: (id) => `/tensions/${id}/rescore`, headers: json, body: '{"score":7}' },
  { name: 'the same rescore: nothing to change', path: (id) => `/tensions/${id}/rescore`, headers: json, body: '{"score":7}' },
  { name: 'a score out of range', path: (id) => `/tensions/${id}/rescore`, headers: json, body: '{"score":11}' },
  { name: 'a score of the wrong type', path: (id) => `/tensions/${id}/rescore`, headers: json, body: '{"score":"high"}' },
  { name: 'an unknown field', path: (id) => `/tensions/${id}/rescore`, headers: json, body: '{"score":5,"extra":true}' },
  { name: 'an unknown tension', path: () => `/tensions/00000000-0000-4000-8000-000000000000/rescore`, headers: json, body: '{"score":5}' },
  { name: 'an id that is no uuid', path: () => `/tensions/not-an-id/rescore`, headers: json, body: '{"score":5}' },
  { name: 'a stale expectedVersion', path: (id) => `/tensions/${id}/rescore`, headers: json, body: '{"score":4,"expectedVersion":1}' },
  { name: 'the current expectedVersion', path: (id) => `/tensions/${id}/rescore`, headers: json, body: '{"score":4,"expectedVersion":2}' },
  { name: 'broken JSON', path: (id) => `/tensions/${id}/rescore`, headers: json, body: '{"score":' },
  { name: 'JSON null', path: (id) => `/tensions/${id}/rescore`, headers: json, body: 'null' },
  { name: 'a JSON array', path: (id) => `/tensions/${id}/rescore`, headers: json, body: '[1]' },
  { name: 'whitespace only', path: (id) => `/tensions/${id}/rescore`, headers: json, body: '  ' },
  { name: 'no body at all', path: (id) => `/tensions/${id}/rescore` },
  { name: 'a byte-order mark before the JSON', path: (id) => `/tensions/${id}/rescore`, headers: json, body: '\uFEFF{"score":3}' },
  { name: 'a body of exactly the limit', path: (id) => `/tensions/${id}/rescore`, headers: json, body: paddedJson({ score: 3 }, BODY_LIMIT_BYTES) },
  {
    name: 'charset=utf-8 and a request id',
    path: (id) => `/tensions/${id}/rescore`,
    headers: { 'content-type': 'application/json; charset=UTF-8', 'x-request-id': 'lane-probe-1' },
    body: '{"score":2}',
  },
  { name: 'an unusable request id', path: (id) => `/tensions/${id}/rescore`, headers: { ...json, 'x-request-id': 'has spaces' }, body: '{"score":1}' },
  {
    name: 'a correlation id',
    path: (id) => `/tensions/${id}/rename`,
    headers: { ...json, 'x-correlation-id': 'corr-1' },
    body: '{"name":"Renamed by the lane test"}',
  },
  { name: 'a key without the permission', as: 'reader', path: (id) => `/tensions/${id}/rescore`, headers: json, body: '{"score":9}' },
  { name: 'an idempotent rescore', path: (id) => `/tensions/${id}/rescore`, headers: { ...json, 'idempotency-key': 'lane-k1' }, body: '{"score":8}' },
  { name: 'its replay', path: (id) => `/tensions/${id}/rescore`, headers: { ...json, 'idempotency-key': 'lane-k1' }, body: '{"score":8}' },
  { name: 'the key again with another body', path: (id) => `/tensions/${id}/rescore`, headers: { ...json, 'idempotency-key': 'lane-k1' }, body: '{"score":6}' },
  { name: 'an unusable idempotency key', path: (id) => `/tensions/${id}/rescore`, headers: { ...json, 'idempotency-key': '' }, body: '{"score":6}' },
  { name: 'a refused move, replayed by its key', path: (id) => `/tensions/${id}/reopen`, headers: { ...json, 'idempotency-key': 'lane-k2' }, body: '{}' },
  { name: 'the refusal replayed', path: (id) => `/tensions/${id}/reopen`, headers: { ...json, 'idempotency-key': 'lane-k2' }, body: '{}' },
  { name: 'resolve', path: (id) => `/tensions/${id}/resolve`, headers: json, body: '{}' },
  { name: 'a rescore of a resolved tension', path: (id) => `/tensions/${id}/rescore`, headers: json, body: '{"score":5}' },
  { name: 'reopen', path: (id) => `/tensions/${id}/reopen`, headers: json, body: '{}' },
  {
    name: 'lead by a user that does not exist',
    path: (id) => `/tensions/${id}/lead`,
    headers: json,
    body: '{"userId":"00000000-0000-4000-8000-000000000001"}',
  },
  {
    name: 'through a trusted proxy, over HTTPS (the CSP asks for upgrades)',
    path: (id) => `/tensions/${id}/rescore`,
    headers: { ...json, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'localhost:8443', 'x-forwarded-for': '198.51.100.7, 10.0.0.1' },
    body: '{"score":2}',
  },
  { name: 'a sense', path: () => `/tensions`, headers: json, body: 'SENSE' },
  { name: 'a sense without an actor', path: () => `/tensions`, headers: json, body: '{"name":"No actor"}' },
];

async function play(s: Side) {
  const id = (await newTension(client(s.app, s.writer.key), { actorId: s.actorId, name: 'Lane', currentContext: 'now' })).id;
  const answers: Answer[] = [];
  for (const step of STEPS) {
    const key = (step.as === 'reader' ? s.reader : s.writer).key;
    const body = step.body === 'SENSE' ? JSON.stringify({ actorId: s.actorId, name: 'Sensed', currentContext: 'now' }) : step.body;
    answers.push(await send(s.app, step.method ?? 'POST', step.path(id), { authorization: `Bearer ${key}`, ...step.headers }, body));
  }
  return answers;
}

describe('the command lane', () => {
  it('answers each plain tension command as Express does, and is the one that answers them', async () => {
    const before = { lane: await laneCount(lane.app), plain: await laneCount(plain.app) };
    const [viaLane, viaExpress] = [await play(lane), await play(plain)];
    STEPS.forEach((step, i) => {
      const generated = !step.headers?.['x-request-id'] || step.headers['x-request-id'] === 'has spaces';
      expect(comparable(viaLane[i], generated), step.name).toEqual(comparable(viaExpress[i], generated));
    });
    // the requests were what they say: the outcomes a client relies on
    const status = (name: string) => viaLane[STEPS.findIndex((s) => s.name === name)].status;
    const proxied = viaLane[STEPS.findIndex((s) => s.name.startsWith('through a trusted proxy'))];
    expect(proxied.status).toBe(200);
    expect(proxied.headers['content-security-policy']).toContain('upgrade-insecure-requests');
    expect(status('a rescore that appends')).toBe(200);
    expect(status('a stale expectedVersion')).toBe(409);
    expect(status('broken JSON')).toBe(400);
    expect(status('a key without the permission')).toBe(403);
    expect(status('a sense')).toBe(201);
    expect(viaLane[STEPS.findIndex((s) => s.name === 'its replay')].headers['idempotent-replayed']).toBe('true');
    expect(viaLane[STEPS.findIndex((s) => s.name === 'charset=utf-8 and a request id')].headers['x-request-id']).toBe('lane-probe-1');
    // every one of them answered by the lane on the service's app (and the sense that made the tension), none on the other
    expect((await laneCount(lane.app)) - before.lane).toBe(STEPS.length + 1);
    expect((await laneCount(plain.app)) - before.plain).toBe(0);
  });

  it('writes the access line Express writes, and counts the request under its route', async () => {
    const answers = await Promise.all(
      [lane, plain].map(async (s) => {
        const id = (await newTension(client(s.app, s.writer.key), { actorId: s.actorId, name: 'Logged', currentContext: 'now' })).id;
        const requestId = `access-${s === lane ? 'lane' : 'plain'}`;
        const res = await send(
          s.app,
          'POST',
          `/tensions/${id}/rescore`,
          { authorization: `Bearer ${s.writer.key}`, ...json, 'x-request-id': requestId, 'x-forwarded-for': '203.0.113.9' },
          '{"score":2}',
        );
        expect(res.status).toBe(200);
        await new Promise((r) => setTimeout(r, 50)); // the line is written when the answer has gone
        const line = s.lines.find((l) => l.msg === 'request' && l.requestId === requestId);
        const metrics = await (await fetch(`${s.app.url}/metrics`)).text();
        return { id, line, metrics, s };
      }),
    );
    for (const { id, line, s } of answers) {
      // TRUST_PROXY's default trusts the loopback peer, so the forwarded address is the client
      expect(line, s === lane ? 'lane' : 'plain').toMatchObject({
        method: 'POST',
        path: `/api/v1/tensions/${id}/rescore`,
        status: 200,
        client: '203.0.113.9',
        userId: s.writer.userId,
        apiKeyId: s.writer.keyId,
      });
      expect(typeof line!.ms).toBe('number');
    }
    const keys = answers.map((a) => Object.keys(a.line!).sort());
    expect(keys[0]).toEqual(keys[1]);
    for (const { metrics } of answers)
      expect(metrics).toMatch(/market_http_requests_total\{method="POST",route="\/api\/v1\/tensions\/:id\/rescore",status="200"\} [1-9]/);
  });

  it('leaves to Express what is not the plain case, which answers it whole', async () => {
    const id = (await newTension(client(lane.app, lane.writer.key), { actorId: lane.actorId, name: 'Left', currentContext: 'now' })).id;
    const auth = { authorization: `Bearer ${lane.writer.key}` };
    const before = await laneCount(lane.app);
    const left: [string, () => Promise<Answer>, number][] = [
      [
        'a compressed body',
        () => send(lane.app, 'POST', `/tensions/${id}/rescore`, { ...auth, ...json, 'content-encoding': 'gzip' }, gzipSync('{"score":3}')),
        200,
      ],
      ['an Origin', () => send(lane.app, 'POST', `/tensions/${id}/rescore`, { ...auth, ...json, origin: 'https://elsewhere.example' }, '{"score":4}'), 200],
      ['a query string', () => send(lane.app, 'POST', `/tensions/${id}/rescore?x=1`, { ...auth, ...json }, '{"score":5}'), 200],
      ['another spelling of the path', () => send(lane.app, 'POST', `/Tensions/${id}/rescore/`, { ...auth, ...json }, '{"score":6}'), 200],
      [
        'a percent-encoded id',
        () => send(lane.app, 'POST', `/tensions/${encodeURIComponent(id).replace('-', '%2D')}/rescore`, { ...auth, ...json }, '{"score":7}'),
        200,
      ],
      ['a text body', () => send(lane.app, 'POST', `/tensions/${id}/rescore`, { ...auth, 'content-type': 'text/plain' }, '{"score":8}'), 415],
      [
        'an unknown key',
        () => send(lane.app, 'POST', `/tensions/${id}/rescore`, { authorization: `Bearer ${formatApiKey(randomBytes(32))}`, ...json }, '{"score":9}'),
        401,
      ],
      ['a malformed Authorization', () => send(lane.app, 'POST', `/tensions/${id}/rescore`, { authorization: 'Basic eDp5', ...json }, '{"score":9}'), 401],
      [
        'a body over the limit',
        () => send(lane.app, 'POST', `/tensions/${id}/rescore`, { ...auth, ...json }, paddedJson({ score: 9 }, BODY_LIMIT_BYTES + 1)),
        413,
      ],
      ['a discard (DELETE, its input in the query)', () => send(lane.app, 'DELETE', `/tensions/${id}?expectedVersion=999`, auth), 409],
    ];
    for (const [name, answer, status] of left) {
      const lookupsBefore = lane.lookups();
      const res = await answer();
      // a key is looked up once, by whichever lane: an unknown one too (the lane leaves what it found to Express)
      expect(lane.lookups() - lookupsBefore, name).toBe(name === 'a malformed Authorization' ? 0 : 1);
      expect(res.status, `${name}: ${res.text}`).toBe(status);
      if (status >= 400) expect(res.headers['content-type'], name).toMatch(/^application\/problem\+json/);
    }
    // a Host the service does not answer to (fetch cannot set Host)
    const misdirected = await new Promise<number>((resolve, reject) => {
      const body = '{"score":1}';
      const url = new URL(lane.app.url);
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: `/api/v1/tensions/${id}/rescore`,
          headers: { ...auth, ...json, host: 'rebound.example', 'content-length': body.length },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(misdirected).toBe(403); // host_not_allowed
    // nor one a trusted proxy forwards
    const forwarded = await send(lane.app, 'POST', `/tensions/${id}/rescore`, { ...auth, ...json, 'x-forwarded-host': 'rebound.example' }, '{"score":2}');
    expect(forwarded.status).toBe(403);
    expect(await laneCount(lane.app)).toBe(before);
  });
});

describe('a command that fails in the database', () => {
  // withFailingWrites: the command's one write fails after its key was found (55P03, or a bug)
  it('is answered as Express answers it: 503 unavailable with Retry-After, or a 500 with the request id only; nothing is written', async () => {
    const before = await laneCount(lane.app);
    const answers = await Promise.all(
      [lane, plain].map((s) =>
        withFailingWrites(s, async (names) => {
          const api = client(s.app, s.writer.key);
          const out: Answer[] = [];
          for (const name of names) {
            const id = (await newTension(api, { actorId: s.actorId, name, currentContext: 'now' })).id;
            out.push(await send(s.app, 'POST', `/tensions/${id}/rescore`, { authorization: `Bearer ${s.writer.key}`, ...json }, '{"score":9}'));
            expect((await streamOf(s.app, id)).length, `${name}: the stream keeps its one event`).toBe(1);
          }
          return out;
        }),
      ),
    );
    const [viaLane, viaExpress] = answers;
    // (the two apps' keys have made different numbers of requests by now: their remaining quota differs)
    const quotaAside = (a: Answer) => {
      const { ratelimit: _quota, ...headers } = comparable(a, true).headers;
      return { ...comparable(a, true), headers };
    };
    for (let i = 0; i < 2; i++) expect(quotaAside(viaLane[i])).toEqual(quotaAside(viaExpress[i]));
    expect(viaLane[0].status).toBe(503);
    expect(viaLane[0].headers['retry-after']).toMatch(/^\d+$/);
    expect((viaLane[0].body as { code: string }).code).toBe('unavailable');
    expect(viaLane[1].status).toBe(500);
    expect(Object.keys(viaLane[1].body as object).sort()).toEqual(['code', 'requestId', 'status', 'title', 'type']);
    // both answered by the lane (and the two senses before them)
    expect((await laneCount(lane.app)) - before).toBe(4);
  });
});

describe('a draining instance', () => {
  it('leaves every request to Express, which asks the client to reconnect elsewhere', async () => {
    let draining = false;
    const app = await startTestApp({}, {}, undefined, { health: { draining: () => draining, schemaCurrent: () => Promise.resolve(true) } });
    try {
      const writer = await seedUserWithKey(app, { type: 'agent', grants: ['tensions:*', 'actors:*'] });
      const api = client(app, writer.key);
      const id = (await newTension(api, { actorId: await newActor(api, 'Draining Co'), name: 'Draining', currentContext: 'now' })).id;
      const auth = { authorization: `Bearer ${writer.key}`, ...json };
      const before = await laneCount(app);
      draining = true;
      const res = await send(app, 'POST', `/tensions/${id}/rescore`, auth, '{"score":2}');
      expect(res.status).toBe(200);
      expect(res.headers.connection).toBe('close');
      expect(await laneCount(app)).toBe(before);
    } finally {
      await app.close();
    }
  });
});

describe('the rate limit, shared by both lanes', () => {
  const limited = suiteSide(true, { rateLimitPerMinute: 4 });

  it('counts a request once, whichever lane answers it, and refuses the one over the limit with 429', async () => {
    // the key's first two requests (its actor through Express, its tension through the lane) are counted
    const id = (await newTension(client(limited.app, limited.writer.key), { actorId: limited.actorId, name: 'Limited', currentContext: 'now' })).id;
    const auth = { authorization: `Bearer ${limited.writer.key}`, ...json };
    const before = await laneCount(limited.app);
    const third = await send(limited.app, 'POST', `/tensions/${id}/rescore`, auth, '{"score":2}');
    expect(third.status).toBe(200);
    expect(third.headers.ratelimit).toMatch(/^"default";r=1;t=\d+$/);
    // a request Express answers counts in the same window
    const fourth = await send(limited.app, 'POST', `/tensions/${id}/rescore?via=express`, auth, '{"score":3}');
    expect(fourth.status).toBe(200);
    expect(fourth.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
    expect(fourth.headers['ratelimit-policy']).toBe('"default";q=4;w=60');
    const lookupsBefore = limited.lookups();
    const fifth = await send(limited.app, 'POST', `/tensions/${id}/rescore`, auth, '{"score":4}');
    // left to Express, which refuses it with what the lane found: one key lookup, not two
    expect(limited.lookups() - lookupsBefore).toBe(1);
    expect(fifth.status).toBe(429);
    expect(fifth.headers['retry-after']).toMatch(/^\d+$/);
    expect(fifth.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
    expect((fifth.body as { code: string }).code).toBe('rate_limited');
    expect(await laneCount(limited.app)).toBe(before + 1); // the third; the fourth went through Express, the fifth was left to it
    const metrics = await (await fetch(`${limited.app.url}/metrics`)).text();
    expect(metrics).toMatch(/^market_rate_limited_total\{scope="request"\} 1$/m);
  });
});
