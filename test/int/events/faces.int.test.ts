// SPEC §10 on the other faces: the GraphQL `events` query and `tensionEvents` subscription (GraphQL over
// SSE, bearer and cookie sessions with the CSRF rule), and the MCP `list_events` tool.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { login } from '../../support/sessions.js';
import { newActor, newTension } from '../../support/tensions.js';
import { rpc } from '../../support/raw-http.js';
import { expectEachStreamInOrder, feedPage, openSse, type FeedEventJson, type SseMessage } from '../../support/feed.js';

let app: TestApp;
let reader: SeededUser;
/** the subscription needs tensions:read as well (SPEC §10) */
let subReader: SeededUser;
let c: ReturnType<typeof client>;
let actorId: string;

beforeAll(async () => {
  app = await startTestApp();
  reader = await seedUserWithKey(app, { grants: ['events:read'] });
  subReader = await seedUserWithKey(app, { grants: ['events:read', 'tensions:read'] });
  c = client(app, (await seedUserWithKey(app, { grants: ['tensions:*', 'actors:*'] })).key);
  actorId = await newActor(c, 'Faces org');
});
afterAll(async () => {
  await app?.close();
});

const SUBSCRIPTION = `subscription($after: String, $types: [TensionEventType!], $streamId: ID) {
  tensionEvents(after: $after, types: $types, streamId: $streamId) { cursor event { id streamId version type data metadata occurredAt } }
}`;

const subscribe = (variables: Record<string, unknown>, headers: Record<string, string>) =>
  openSse(
    `${app.url}/graphql`,
    { 'content-type': 'application/json', ...headers },
    { method: 'POST', body: JSON.stringify({ query: SUBSCRIPTION, variables }) },
  );

const nextPayloads = (messages: SseMessage[]) =>
  messages
    .filter((m) => m.event === 'next' && m.data)
    .map((m) => JSON.parse(m.data!) as { data?: { tensionEvents: { cursor: string; event: FeedEventJson } }; errors?: { extensions: { code: string } }[] });

describe('GraphQL', () => {
  it('events pages the feed like REST (same cursors), refuses bad input as VALIDATION_FAILED and callers without events:read as FORBIDDEN', async () => {
    const now = (await feedPage(app, reader.key, { after: 'now' })).nextCursor;
    const t = await newTension(c, { name: 'GraphQL', actorId });
    const q = `query($after: String, $types: [TensionEventType!], $limit: Int) { events(after: $after, types: $types, limit: $limit) { data { id streamId type version metadata } nextCursor } }`;
    // (followed until visible: the horizon is the cluster's, and a busy cluster holds it back a moment)
    let res = await client(app, reader.key).gql(q, { after: now });
    for (let i = 0; i < 50 && !res.body.data.events.data.some((e: FeedEventJson) => e.streamId === t.id); i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await client(app, reader.key).gql(q, { after: now });
    }
    const ours = res.body.data.events.data.filter((e: FeedEventJson) => e.streamId === t.id);
    expect(ours.map((e: FeedEventJson) => [e.streamId, e.type])).toEqual([[t.id, 'TensionSensed']]);
    expect(ours[0].metadata).not.toHaveProperty('apiKeyId');
    expect((await feedPage(app, reader.key, { after: res.body.data.events.nextCursor })).data.filter((e) => e.streamId === t.id)).toEqual([]);
    for (const vars of [{ after: 'forged' }, { types: ['Nope'] }, { limit: 1001 }]) {
      expect((await client(app, reader.key).gql(q, vars)).body.errors[0].extensions.code, JSON.stringify(vars)).toBe('VALIDATION_FAILED');
    }
    const noRead = await seedUserWithKey(app, { grants: ['tensions:read'] });
    expect((await client(app, noRead.key).gql(q)).body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', missingPermission: 'events:read' });
  });

  it('tensionEvents over SSE delivers every event once, each stream in order, while 8 writers append; resumes after a drop with `after: cursor`', async () => {
    const start = (await feedPage(app, reader.key, { after: 'now' })).nextCursor;
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await newTension(c, { name: `Sub ${i}`, actorId })).id);
    const received: { cursor: string; event: FeedEventJson }[] = [];
    const first = await subscribe({ after: start }, { authorization: `Bearer ${subReader.key}` });
    expect(first.status).toBe(200);
    const writers = Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (let n = 0; n < 8; n++)
          expect([200, 409]).toContain((await c.post(`/tensions/${ids[(w + n) % ids.length]}/rescore`, { score: 1 + (n % 10) })).status);
      }),
    );
    await first.until((m) => nextPayloads(m).length >= 15, '15 events');
    first.close();
    await first.ended;
    received.push(...nextPayloads(first.messages).map((p) => p.data!.tensionEvents));
    await writers;
    const [{ n }] = await app.em().execute(`select count(*)::int as n from domain_events where stream_id = any(?::uuid[])`, [`{${ids.join(',')}}`]);
    const second = await subscribe({ after: received[received.length - 1].cursor }, { authorization: `Bearer ${subReader.key}` });
    await second.until((m) => received.length + nextPayloads(m).length >= n + 0, 'the rest');
    second.close();
    received.push(...nextPayloads(second.messages).map((p) => p.data!.tensionEvents));
    const events = received.map((r) => r.event).filter((e) => ids.includes(e.streamId));
    expect(new Set(received.map((r) => r.event.id)).size).toBe(received.length);
    expect(events.length).toBe(n);
    expectEachStreamInOrder(events);
  });

  it('subscriptions keep auth and CSRF: anonymous callers and callers without events:read or tensions:read are refused; a cookie session needs the CSRF header on POST', async () => {
    const anon = await subscribe({ after: 'now' }, {});
    const anonText = anon.status === 200 ? JSON.stringify(anon.messages) : String(anon.status);
    if (anon.status === 200) await anon.until((m) => m.some((x) => x.event === 'next' || x.event === 'complete'), 'an answer');
    expect(anon.status === 401 || /UNAUTHENTICATED/.test(JSON.stringify(anon.messages)), `${anonText} ${anon.status} ${JSON.stringify(anon.messages)}`).toBe(
      true,
    );
    anon.close();

    const noRead = await seedUserWithKey(app, { grants: ['tensions:read'] });
    const denied = await subscribe({ after: 'now' }, { authorization: `Bearer ${noRead.key}` });
    await denied.until((m) => nextPayloads(m).length >= 1, 'a refusal');
    expect(nextPayloads(denied.messages)[0].errors![0].extensions).toMatchObject({ code: 'FORBIDDEN', missingPermission: 'events:read' });
    denied.close();
    // the events carry tension data: the subscription also needs tensions:read (SPEC §10)
    const eventsOnly = await subscribe({ after: 'now' }, { authorization: `Bearer ${reader.key}` });
    await eventsOnly.until((m) => nextPayloads(m).length >= 1, 'a refusal');
    expect(nextPayloads(eventsOnly.messages)[0].errors![0].extensions).toMatchObject({ code: 'FORBIDDEN', missingPermission: 'tensions:read' });
    eventsOnly.close();

    const session = await login(app, ADMIN.email, ADMIN.password);
    const cookie = `session=${session.token}`;
    const noCsrf = await subscribe({ after: 'now' }, { cookie });
    expect(noCsrf.status).toBe(403);
    const withCsrf = await subscribe({ after: 'now' }, { cookie, 'x-csrf-protection': '1' });
    expect(withCsrf.status).toBe(200);
    const t = await newTension(c, { name: 'Seen by the session', actorId });
    await withCsrf.until((m) => nextPayloads(m).some((p) => p.data?.tensionEvents.event.streamId === t.id), 'the new tension');
    withCsrf.close();
  });
});

describe('MCP list_events', () => {
  it('reads the feed with the REST parameters (no wait), answers structured content, refuses bad cursors as validation_failed', async () => {
    const now = (await feedPage(app, reader.key, { after: 'now' })).nextCursor;
    const t = await newTension(c, { name: 'MCP', actorId });
    await c.post(`/tensions/${t.id}/rename`, { name: 'MCP 2' });
    const res = await rpc(app, reader.key, 'tools/call', { name: 'list_events', arguments: { after: now, types: ['TensionRenamed'] } });
    const content = res.json.result.structuredContent;
    expect(content.data.filter((e: FeedEventJson) => e.streamId === t.id).map((e: FeedEventJson) => [e.streamId, e.type])).toEqual([[t.id, 'TensionRenamed']]);
    expect(content.nextCursor).toEqual(expect.any(String));
    const bad = await rpc(app, reader.key, 'tools/call', { name: 'list_events', arguments: { after: 'forged' } });
    expect([bad.json.result.isError, bad.json.result.structuredContent.code]).toEqual([true, 'validation_failed']);
    const withWait = await rpc(app, reader.key, 'tools/call', { name: 'list_events', arguments: { wait: 5 } });
    expect(withWait.json.result.isError).toBe(true);
  });
});
