// The GraphQL half of the command lane (server/graphql/lane.ts): a `POST /graphql` with a bearer key runs
// through yoga's pipeline without yoga's HTTP layer, and what a client gets is what Express and yoga give.
// Two apps, the service's (lane on) and one with every request through Express (`commandLane: false`), play
// the same requests; their answers must be equal but for the ids and times each made, and the lane must be
// the one that answered exactly the requests it admits (the others it leaves to Express with the body it read).
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { client, seedUserWithKey } from '../../support/clients.js';
import { newTension, streamOf } from '../../support/tensions.js';
import { comparable, laneCount, send, suiteSide, withFailingWrites, type Answer, type Side } from '../../support/lanes.js';
import { formatApiKey } from '../../../server/domain/api-key.js';
import { MAX_DOCUMENT } from '../../../server/graphql/lane.js';

const RESCORE = `mutation Rescore($id: ID!, $input: RescoreTensionInput!, $key: String) {
  rescoreTension(id: $id, input: $input, idempotencyKey: $key) { tension { id name score state version updatedAt actor { id name } } event { version type summary } } }`;
const READ = `query Read($id: ID!) { tension(id: $id) { id name score version } }`;
const TWO = `query A { __typename } query B($id: ID!) { tension(id: $id) { name } }`;
const SENSE = `mutation($input: SenseTensionInput!) { senseTension(input: $input) { tension { id name score version } event { type version } } }`;

const json = { 'content-type': 'application/json' };
type Body = Record<string, unknown> | string;
interface Step {
  name: string;
  /** the body: an object is sent as JSON; `id` in its variables is the tension's */
  body: (id: string, actorId: string) => Body;
  headers?: Record<string, string>;
  as?: 'writer' | 'reader' | 'stranger';
  /** whether the lane answers it (else Express does) */
  laned: boolean;
}

const rescore = (id: string, input: Record<string, unknown>, key?: string) => ({ query: RESCORE, variables: { id, input, ...(key ? { key } : {}) } });

const STEPS: Step[] = [
  { name: 'a rescore that appends', body: (id) => rescore(id, { score: 7 }), laned: true },
  { name: 'the same rescore: nothing to change', body: (id) => rescore(id, { score: 7 }), laned: true },
  { name: 'a score out of range', body: (id) => rescore(id, { score: 11 }), laned: true },
  { name: 'a score of the wrong type (variables)', body: (id) => rescore(id, { score: 'high' }), laned: true },
  { name: 'an unknown field in the input', body: (id) => rescore(id, { score: 5, extra: true }), laned: true },
  { name: 'an unknown tension', body: () => rescore('00000000-0000-4000-8000-000000000000', { score: 5 }), laned: true },
  { name: 'an id that is no uuid', body: () => rescore('not-an-id', { score: 5 }), laned: true },
  { name: 'a stale expectedVersion', body: (id) => rescore(id, { score: 4, expectedVersion: 1 }), laned: true },
  { name: 'the current expectedVersion', body: (id) => rescore(id, { score: 4, expectedVersion: 2 }), laned: true },
  { name: 'an idempotent rescore', body: (id) => rescore(id, { score: 8 }, 'gql-lane-k1'), laned: true },
  { name: 'its replay', body: (id) => rescore(id, { score: 8 }, 'gql-lane-k1'), laned: true },
  { name: 'the key again with other arguments', body: (id) => rescore(id, { score: 6 }, 'gql-lane-k1'), laned: true },
  { name: 'a key without the permission', as: 'reader', body: (id) => rescore(id, { score: 9 }), laned: true },
  { name: 'a query', body: (id) => ({ query: READ, variables: { id } }), laned: true },
  { name: 'a query with null variables and operation name', body: () => ({ query: '{ __typename }', variables: null, operationName: null }), laned: true },
  { name: 'one operation of two, by name', body: (id) => ({ query: TWO, variables: { id }, operationName: 'B' }), laned: true },
  { name: 'an operation name the document lacks', body: (id) => ({ query: TWO, variables: { id }, operationName: 'C' }), laned: false },
  { name: 'two operations and no name', body: (id) => ({ query: TWO, variables: { id } }), laned: false },
  { name: 'a field that does not exist', body: () => ({ query: '{ tensionz { data { id } } }' }), laned: true },
  { name: 'a document that does not parse', body: () => ({ query: '{ tension(' }), laned: false },
  {
    name: 'lists over the item budget',
    // 2,001 items: one over LIST_ITEMS_PER_REQUEST
    body: () => ({ query: '{ a: events(limit: 1000) { data { id } } b: events(limit: 1000) { data { id } } c: events(limit: 1) { data { id } } }' }),
    laned: true,
  },
  { name: 'deeper than the depth limit', body: () => ({ query: `{ ${'me { '.repeat(14)}id${' }'.repeat(14)} }` }), laned: true },
  { name: 'a variable that is missing', body: () => ({ query: READ }), laned: true },
  {
    name: 'Accept: application/graphql-response+json, a validation error (400)',
    body: () => ({ query: '{ nope }' }),
    headers: { accept: 'application/graphql-response+json' },
    laned: true,
  },
  {
    name: 'Accept: application/graphql-response+json, a query',
    body: (id) => ({ query: READ, variables: { id } }),
    headers: { accept: 'application/graphql-response+json' },
    laned: true,
  },
  { name: 'Accept: */*', body: (id) => ({ query: READ, variables: { id } }), headers: { accept: '*/*' }, laned: true },
  { name: 'Accept: application/json', body: () => ({ query: '{ nope }' }), headers: { accept: 'application/json' }, laned: true },
  { name: 'Accept: text/html', body: (id) => ({ query: READ, variables: { id } }), headers: { accept: 'text/html' }, laned: false },
  {
    name: 'Accept: several types, a query',
    body: (id) => ({ query: READ, variables: { id } }),
    headers: { accept: 'application/graphql-response+json, application/json' },
    laned: true,
  },
  // the forms clients send (graphql-request, Apollo, urql), and the edges of yoga's negotiation
  ...(
    [
      ['application/graphql-response+json, application/json', true],
      ['application/graphql-response+json,application/json;q=0.9', true],
      ['application/json;q=0.9, application/graphql-response+json', true],
      ['application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed', true],
      ['text/event-stream, application/json', true],
      ['APPLICATION/GRAPHQL-RESPONSE+JSON', true],
      ['application/*', true],
      ['*/json', true],
      ['application/json; charset=utf-8', true],
      ['application/json; charset=iso-8859-1', false],
      ['application/json; charset=iso-8859-1, */*', true],
      ['text/event-stream', false],
      ['multipart/mixed', false],
      ['application', false],
      [',', false],
      ['', true],
    ] as const
  ).map(([accept, laned]): Step => ({
    name: `Accept: ${JSON.stringify(accept)}, a validation error`,
    body: () => ({ query: '{ nope }' }),
    headers: { accept },
    laned,
  })),
  {
    name: 'a request id and a correlation id',
    body: (id) => rescore(id, { score: 3 }),
    headers: { 'x-request-id': 'gql-lane-1', 'x-correlation-id': 'corr-gql' },
    laned: true,
  },
  { name: 'charset=utf-8', body: (id) => rescore(id, { score: 2 }), headers: { 'content-type': 'application/json; charset=utf-8' }, laned: true },
  {
    name: 'a sense',
    body: (_id, actorId) => ({ query: SENSE, variables: { input: { actorId, name: 'Sensed over GraphQL', currentContext: 'now' } } }),
    laned: true,
  },
  { name: 'broken JSON', body: () => '{"query":', laned: false },
  { name: 'a byte-order mark before the JSON', body: () => '\uFEFF{"query":"{ __typename }"}', laned: false },
  { name: 'a batch', body: () => '[{"query":"{ __typename }"}]', laned: false },
  { name: 'extensions', body: () => ({ query: '{ __typename }', extensions: { persistedQuery: { version: 1 } } }), laned: false },
  { name: 'variables that are not an object', body: () => ({ query: '{ __typename }', variables: [1] }), laned: false },
  { name: 'a query that is not a string', body: () => ({ query: 42 }), laned: false },
  { name: 'a subscription', body: () => ({ query: 'subscription { tensionEvents { __typename } }' }), laned: false },
  {
    name: 'a field that sets the session cookie (login)',
    body: () => ({ query: 'mutation { login(input: { email: "nobody@example.com", password: "wrong-password" }) { id } }' }),
    laned: false,
  },
  { name: 'a fragment at the root', body: () => ({ query: 'query { ...Root } fragment Root on Query { __typename }' }), laned: false },
  { name: 'a document longer than the lane takes', body: () => ({ query: `{ __typename }${' '.repeat(MAX_DOCUMENT)}` }), laned: false },
  { name: 'a document exactly as long as the lane takes', body: () => ({ query: `{ __typename }${' '.repeat(MAX_DOCUMENT - 14)}` }), laned: true },
  { name: 'an unknown key', as: 'stranger', body: (id) => ({ query: READ, variables: { id } }), laned: false },
];

const lane = suiteSide(true);
const plain = suiteSide(false);

const stranger = formatApiKey(randomBytes(32));

async function post(s: Side, body: Body, headers: Record<string, string> = {}, as: Step['as'] = 'writer'): Promise<Answer> {
  const key = as === 'stranger' ? stranger : (as === 'reader' ? s.reader : s.writer).key;
  return send(s.app, 'POST', '/graphql', { authorization: `Bearer ${key}`, ...json, ...headers }, typeof body === 'string' ? body : JSON.stringify(body));
}

async function play(s: Side): Promise<{ answers: Answer[]; laned: boolean[] }> {
  const id = (await newTension(client(s.app, s.writer.key), { actorId: s.actorId, name: 'GraphQL lane', currentContext: 'now' })).id;
  const answers: Answer[] = [];
  const laned: boolean[] = [];
  for (const step of STEPS) {
    const before = await laneCount(s.app);
    answers.push(await post(s, step.body(id, s.actorId), step.headers, step.as));
    laned.push((await laneCount(s.app)) > before);
  }
  return { answers, laned };
}

describe('the GraphQL lane', () => {
  it('answers each request as Express and yoga do, and is the one that answers exactly those it admits', async () => {
    const [viaLane, viaExpress] = [await play(lane), await play(plain)];
    STEPS.forEach((step, i) => {
      const generated = !step.headers?.['x-request-id'];
      expect(comparable(viaLane.answers[i], generated), step.name).toEqual(comparable(viaExpress.answers[i], generated));
      expect(viaLane.laned[i], `${step.name}: answered by the lane`).toBe(step.laned);
      expect(viaExpress.laned[i], step.name).toBe(false);
    });
    // the requests were what they say: the outcomes a client relies on
    const answer = (name: string) => viaLane.answers[STEPS.findIndex((s) => s.name === name)];
    const errorCode = (name: string) => (answer(name).body as { errors?: { extensions: { code: string } }[] }).errors?.[0]?.extensions.code;
    expect(answer('a rescore that appends').body).toMatchObject({ data: { rescoreTension: { tension: { score: 7, version: 2 } } } });
    expect(answer('the same rescore: nothing to change').body).toMatchObject({ data: { rescoreTension: { event: null } } });
    expect(errorCode('a stale expectedVersion')).toBe('VERSION_CONFLICT');
    expect(errorCode('a key without the permission')).toBe('FORBIDDEN');
    expect(errorCode('lists over the item budget')).toBe('TOO_COSTLY');
    expect(errorCode('a field that does not exist')).toBe('VALIDATION_FAILED');
    expect(answer('Accept: application/graphql-response+json, a validation error (400)').status).toBe(400);
    expect(answer('Accept: application/graphql-response+json, a query').headers['content-type']).toBe('application/graphql-response+json; charset=utf-8');
    expect(answer('its replay').body).toEqual(answer('an idempotent rescore').body);
    expect(errorCode('the key again with other arguments')).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(answer('a request id and a correlation id').headers['x-request-id']).toBe('gql-lane-1');
    expect(answer('broken JSON').status).toBe(400);
    expect(answer('an unknown key').status).toBe(401);
    expect(answer('a sense').body).toMatchObject({ data: { senseTension: { event: { type: 'TensionSensed', version: 1 } } } });
  });

  it('writes the access line Express writes, counts the request under /graphql, and records who asked in the event', async () => {
    const answers = await Promise.all(
      [lane, plain].map(async (s) => {
        const id = (await newTension(client(s.app, s.writer.key), { actorId: s.actorId, name: 'Logged', currentContext: 'now' })).id;
        const requestId = `gql-access-${s === lane ? 'lane' : 'plain'}`;
        const res = await post(s, rescore(id, { score: 2 }), { 'x-request-id': requestId, 'x-forwarded-for': '203.0.113.9', 'x-correlation-id': 'gql-corr' });
        expect(res.status).toBe(200);
        await new Promise((r) => setTimeout(r, 50)); // the line is written when the answer has gone
        const line = s.lines.find((l) => l.msg === 'request' && l.requestId === requestId);
        const metrics = await (await fetch(`${s.app.url}/metrics`)).text();
        const [rescored] = await s.app
          .em()
          .execute<{ metadata: Record<string, unknown> }[]>(
            `select metadata from domain_events where stream_type = 'tension' and stream_id = ? and version = 2`,
            [id],
          );
        return { line, metrics, rescored, s };
      }),
    );
    for (const { line, s, rescored } of answers) {
      expect(line, s === lane ? 'lane' : 'plain').toMatchObject({
        method: 'POST',
        path: '/graphql',
        status: 200,
        client: '203.0.113.9',
        userId: s.writer.userId,
        apiKeyId: s.writer.keyId,
      });
      // the event's metadata: the face, the request, the correlation and the client, as the use case got them
      expect(rescored.metadata).toMatchObject({ via: 'graphql', correlationId: 'gql-corr' });
    }
    expect(Object.keys(answers[0].line!).sort()).toEqual(Object.keys(answers[1].line!).sort());
    const own = ({ rescored, s }: (typeof answers)[number]) => ({ ...rescored.metadata, userId: s === lane, apiKeyId: s === lane, requestId: s === lane });
    expect(answers[0].rescored.metadata).toMatchObject({ userId: lane.writer.userId, apiKeyId: lane.writer.keyId, requestId: 'gql-access-lane' });
    expect(own(answers[0])).toEqual({ ...own(answers[1]), userId: true, apiKeyId: true, requestId: true });
    for (const { metrics } of answers) expect(metrics).toMatch(/market_http_requests_total\{method="POST",route="\/graphql",status="200"\} [1-9]/);
  });
});

describe('a GraphQL command that fails in the database', () => {
  // withFailingWrites: the command's one write fails after its key was found (55P03, or a bug)
  it('is answered as Express answers it (UNAVAILABLE, or INTERNAL with the request id only) and logged once; nothing is written', async () => {
    const before = await laneCount(lane.app);
    const answers = await Promise.all(
      [lane, plain].map((s) =>
        withFailingWrites(s, async (names) => {
          const out: Answer[] = [];
          for (const name of names) {
            const id = (await newTension(client(s.app, s.writer.key), { actorId: s.actorId, name, currentContext: 'now' })).id;
            out.push(await post(s, rescore(id, { score: 9 }), { 'x-request-id': `gql-fail-${name.split(' ')[1]}` }));
            expect((await streamOf(s.app, id)).length, `${name}: the stream keeps its one event`).toBe(1);
          }
          return out;
        }),
      ),
    );
    const quotaAside = (a: Answer) => {
      const { ratelimit: _quota, ...headers } = comparable(a, false).headers;
      return { ...comparable(a, false), headers };
    };
    for (let i = 0; i < 2; i++) expect(quotaAside(answers[0][i])).toEqual(quotaAside(answers[1][i]));
    const codes = answers[0].map((a) => (a.body as { errors: { extensions: { code: string } }[] }).errors[0].extensions);
    expect(codes[0].code).toBe('UNAVAILABLE');
    expect(codes[1]).toEqual({ code: 'INTERNAL', requestId: 'gql-fail-bug' });
    // the bug is logged, whole, under its request id, by the lane as by Express
    for (const s of [lane, plain]) {
      const logged = s.lines.filter((l) => l.msg === 'graphql resolver failed' && l.requestId === 'gql-fail-bug');
      expect(logged, s === lane ? 'lane' : 'plain').toHaveLength(1);
    }
    expect((await laneCount(lane.app)) - before).toBe(4); // the two rescores and the two senses before them (REST)
  });
});

describe('the rate limit, shared by both lanes', () => {
  const limited = suiteSide(true, { rateLimitPerMinute: 3 });

  it('counts a GraphQL request once, whichever lane answers it, and refuses the one over the limit with 429', async () => {
    // the key's first request made its actor (through Express)
    const before = await laneCount(limited.app);
    const second = await post(limited, { query: '{ __typename }' });
    expect(second.status).toBe(200);
    expect(second.headers.ratelimit).toMatch(/^"default";r=1;t=\d+$/);
    // one the lane reads and leaves to Express counts in the same window, once
    const third = await post(limited, '[{"query":"{ __typename }"}]');
    expect(third.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
    const lookupsBefore = limited.lookups();
    const fourth = await post(limited, { query: '{ __typename }' });
    expect(limited.lookups() - lookupsBefore).toBe(1);
    expect(fourth.status).toBe(429);
    expect(fourth.headers['retry-after']).toMatch(/^\d+$/);
    expect(await laneCount(limited.app)).toBe(before + 1);
  });

  it('refuses a request whose body arrived after another took the last of the window (429, not an answer past the limit)', async () => {
    const slowCaller = await seedUserWithKey(limited.app, { type: 'agent', grants: ['tensions:read'], name: 'Slow body' });
    const headers = { authorization: `Bearer ${slowCaller.key}`, ...json };
    const body = '{"query":"{ __typename }"}';
    for (let i = 0; i < 2; i++) expect((await send(limited.app, 'POST', '/graphql', headers, body)).status).toBe(200);
    // the third request of the window sends half its body and waits; its key is looked up meanwhile
    const lookupsBefore = limited.lookups();
    const url = new URL(limited.app.url);
    let finishBody!: () => void;
    const slow = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: url.hostname, port: url.port, method: 'POST', path: '/graphql', headers: { ...headers, 'content-length': body.length } },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      finishBody = () => req.end(body.slice(10));
    });
    while (limited.lookups() === lookupsBefore) await new Promise((r) => setTimeout(r, 5));
    // another request of the same key takes the last of the window while the body is on its way
    expect((await send(limited.app, 'POST', '/graphql', headers, body)).status).toBe(200);
    finishBody();
    const answer = await slow;
    expect(answer.status, answer.text).toBe(429);
    expect(JSON.parse(answer.text).errors[0].extensions.code).toBe('RATE_LIMITED');
  });
});
