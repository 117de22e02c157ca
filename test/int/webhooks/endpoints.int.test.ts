// Webhook endpoints (SPEC §14): create with the secret once, list/read/update/delete, rotation with overlap,
// retry and replay, GraphQL, bad input as clear 4xx, escalation, SSRF refusals at creation and at delivery
// (a resolver stub: no outside address is ever contacted), and the secret never in a list, log, audit or export.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { newActor, newTension } from '../../support/tensions.js';
import { dispatcher, startReceiver, testClock, until, verifies, type Receiver } from '../../support/webhooks.js';
import type { RunningDispatcher } from '../../../server/application/webhooks/dispatcher.js';
import type { ResolvedAddress } from '../../../server/application/webhooks/destination.js';
import { exportRows } from '../../../server/persistence/dump.js';
import { createLogger } from '../../../server/logger.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let run: RunningDispatcher;
let r: Receiver;
let logs = '';
const time = testClock();
/** what the stub resolver answers, by host name */
const dns = new Map<string, ResolvedAddress[]>();
const resolveHost = async (host: string) => {
  const found = dns.get(host);
  if (!found) throw new Error(`ENOTFOUND ${host}`);
  return found;
};

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _e, done) {
      logs += chunk.toString();
      done();
    },
  });
  app = await startTestApp({ webhookAllowPrivate: false, logLevel: 'trace' }, { clock: time.clock, resolveHost, logger: createLogger('trace', sink) });
  api = client(app, (await seedUserWithKey(app, { grants: ['*'] })).key);
  r = await startReceiver();
});
afterAll(async () => {
  await run?.stop();
  await r?.close();
  await app?.close();
});

/** Endpoints on the local receiver need private destinations allowed: this app refuses them, so tests that deliver flip the flag. */
function allowPrivate(on: boolean) {
  app.deps.config.webhookAllowPrivate = on;
}

describe('SSRF: a URL must be https and resolve only to public addresses', () => {
  it.each([
    ['http://public.example/hook', 'must be an https URL'],
    ['ftp://public.example/hook', 'must be an https URL'],
    ['https://user:pw@public.example/hook', 'must not carry credentials'],
    ['not a url', 'must be an absolute URL'],
    ['https://127.0.0.1/hook', '127.0.0.1'],
    ['https://[::1]/hook', '::1'],
    ['https://10.1.2.3/hook', '10.1.2.3'],
    ['https://172.16.0.1/hook', '172.16.0.1'],
    ['https://192.168.1.1/hook', '192.168.1.1'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254'],
    ['https://[fe80::1]/hook', 'fe80::1'],
    ['https://224.0.0.1/hook', '224.0.0.1'],
    ['https://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1'],
    ['https://[fd00:ec2::254]/hook', 'fd00:ec2::254'],
    ['https://0.0.0.0/hook', '0.0.0.0'],
    ['https://private.example/hook', '10.0.0.1'],
    ['https://mixed.example/hook', '127.0.0.1'],
    ['https://nowhere.example/hook', 'does not resolve'],
  ])('%s → 400 (%s)', async (url, why) => {
    dns.set('private.example', [{ address: '10.0.0.1', family: 4 }]);
    dns.set('mixed.example', [
      { address: '93.184.215.14', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]);
    const res = await api.post('/webhooks', { url });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors[0].path).toBe('url');
    expect(res.body.errors[0].message).toContain(why);
  });

  it('a name that resolved to a public address at creation and resolves to a private one later: the delivery fails without being sent', async () => {
    // The stub answers a public address at creation only; nothing is ever sent to it.
    dns.set('turns.example', [{ address: '93.184.215.14', family: 4 }]);
    const created = await api.post('/webhooks', { url: 'https://turns.example/hook' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    dns.set('turns.example', [{ address: '10.0.0.1', family: 4 }]);
    run = dispatcher(app.db.orm, { clock: time.clock, allowPrivate: false, resolveHost });
    const test = await api.post(`/webhooks/${created.body.id}/test`);
    expect(test.status).toBe(202);
    await until(
      async () =>
        (await api.get(`/webhooks/${created.body.id}/deliveries`)).body.data[0].attempts === 1 &&
        (await api.get(`/webhooks/${created.body.id}/deliveries`)).body.data[0].status === 'retrying',
      'the attempt',
    );
    const d = (await api.get(`/webhooks/${created.body.id}/deliveries`)).body.data[0];
    expect(d).toMatchObject({ status: 'retrying', lastResponseStatus: null });
    expect(d.lastError).toMatch(/^not sent: the URL its host resolves to 10\.0\.0\.1/);
    await run.stop();
    // and an endpoint already pointing at loopback (made while private ones were allowed) is not sent to either
    allowPrivate(true);
    const local = await api.post('/webhooks', { url: r.url });
    allowPrivate(false);
    run = dispatcher(app.db.orm, { clock: time.clock, allowPrivate: false, resolveHost });
    await api.post(`/webhooks/${local.body.id}/test`);
    await until(async () => (await api.get(`/webhooks/${local.body.id}/deliveries`)).body.data[0].status === 'retrying', 'the attempt');
    expect((await api.get(`/webhooks/${local.body.id}/deliveries`)).body.data[0].lastError).toMatch(/^not sent: the URL must be an https URL/);
    expect(r.received).toHaveLength(0);
    await run.stop();
    await api.del(`/webhooks/${created.body.id}`);
    await api.del(`/webhooks/${local.body.id}`);
  });
});

describe('endpoints', () => {
  it('create (secret once), list and read (never the secret), update, delete; audited without the secret', async () => {
    allowPrivate(true);
    const created = await api.post('/webhooks', { url: r.url, description: '  CRM  ', types: ['TensionSensed', 'TensionSensed'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { secret, ...view } = created.body;
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(view).toMatchObject({ url: r.url, description: 'CRM', types: ['TensionSensed'], enabled: true, disabledReason: null, version: 1 });
    const id = view.id;
    const listed = await api.get('/webhooks');
    expect(listed.body.data.map((w: { id: string }) => w.id)).toContain(id);
    const read = await api.get(`/webhooks/${id}`);
    expect(read.body).toEqual(view);
    expect(JSON.stringify([listed.body, read.body])).not.toContain(secret);
    const gql = await api.gql('{ webhooks { data { id url types } } webhook(id: "' + id + '") { id enabled } }');
    expect(gql.body.errors).toBeUndefined();
    expect(JSON.stringify(gql.body)).not.toContain(secret);

    const off = await api.patch(`/webhooks/${id}`, { enabled: false, types: null, description: null, expectedVersion: 1 });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body).toMatchObject({ enabled: false, disabledReason: 'manual', types: null, description: null, version: 2 });
    expect((await api.patch(`/webhooks/${id}`, { enabled: true, expectedVersion: 1 })).body.code).toBe('version_conflict');
    const on = await api.patch(`/webhooks/${id}`, { enabled: true });
    expect(on.body).toMatchObject({ enabled: true, disabledReason: null, version: 3 });
    const same = await api.patch(`/webhooks/${id}`, { enabled: true });
    expect(same.body.version).toBe(3);

    const audit = await api.get(`/audit?targetId=${id}`);
    expect(audit.body.data.map((e: { action: string }) => e.action).sort()).toEqual(['webhook.created', 'webhook.updated', 'webhook.updated']);
    expect(audit.body.data.every((e: { target: { type: string } }) => e.target.type === 'webhook')).toBe(true);
    expect(JSON.stringify(audit.body)).not.toContain(secret);

    expect((await api.del(`/webhooks/${id}`)).status).toBe(204);
    expect((await api.get(`/webhooks/${id}`)).status).toBe(404);
    expect((await api.del(`/webhooks/${id}`)).status).toBe(404);
    expect((await api.get(`/audit?action=webhook.deleted&targetId=${id}`)).body.data).toHaveLength(1);
  });

  it.each([
    [{}, 'url', 'required'],
    [{ url: 42 }, 'url', 'invalid_type'],
    [{ url: `https://a.example/${'x'.repeat(2048)}` }, 'url', 'too_long'],
    [{ url: 'https://a.example/', types: [] }, 'types', 'too_small'],
    [{ url: 'https://a.example/', types: ['NoSuchEvent'] }, 'types.0', 'invalid_value'],
    [{ url: 'https://a.example/', description: 'd'.repeat(501) }, 'description', 'too_long'],
    [{ url: 'https://a.example/', enabled: 'yes' }, 'enabled', 'invalid_type'],
    [{ url: 'https://a.example/', secret: 'whsec_mine' }, '(root)', 'unknown_field'],
  ])('create %j → 400 on %s (%s)', async (body, path, code) => {
    const res = await api.post('/webhooks', body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.errors.map((e: { path: string; code: string }) => [e.path, e.code])).toContainEqual([path, code]);
  });

  it('bad input elsewhere is a clear 4xx: unknown ids 404, bad overlap 400, bad cursors 400, a bad status 400', async () => {
    allowPrivate(true);
    const id = (await api.post('/webhooks', { url: r.url })).body.id;
    expect((await api.get('/webhooks/not-a-uuid')).status).toBe(404);
    expect((await api.patch('/webhooks/7d3f1c52-5b1e-4c6a-9d0e-2f4b8a6c1e90', { enabled: false })).status).toBe(404);
    expect((await api.post(`/webhooks/${id}/rotate-secret`, { overlapSeconds: 604_801 })).status).toBe(400);
    expect((await api.post(`/webhooks/${id}/rotate-secret`, { overlapSeconds: -1 })).status).toBe(400);
    expect((await api.post(`/webhooks/${id}/rotate-secret`, { overlapSeconds: 1.5 })).status).toBe(400);
    expect((await api.get(`/webhooks/${id}/deliveries?status=lost`)).status).toBe(400);
    expect((await api.get(`/webhooks/${id}/deliveries?cursor=abc`)).status).toBe(400);
    expect((await api.get('/webhooks?cursor=abc')).status).toBe(400);
    expect((await api.get('/webhooks?limit=101')).status).toBe(400);
    expect((await api.post(`/webhooks/${id}/replay`, {})).status).toBe(400);
    expect((await api.post(`/webhooks/${id}/replay`, { after: 'forged' })).status).toBe(400);
    expect((await api.post(`/webhooks/${id}/deliveries/7d3f1c52-5b1e-4c6a-9d0e-2f4b8a6c1e90/retry`)).status).toBe(404);
    expect((await api.patch(`/webhooks/${id}`, { url: 'https://127.0.0.1/' })).status).toBe(200); // private allowed here
    allowPrivate(false);
    expect((await api.patch(`/webhooks/${id}`, { url: 'https://127.0.0.1/' })).status).toBe(400);
    allowPrivate(true);
    // test messages waiting are bounded per endpoint
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push((await api.post(`/webhooks/${id}/test`)).status);
    expect(answers).toEqual([202, 202, 202, 202, 202, 429]);
    await api.del(`/webhooks/${id}`);
  });

  it('escalation: pointing an endpoint at the feed needs events:read besides webhooks:write', async () => {
    allowPrivate(true);
    const writer = client(app, (await seedUserWithKey(app, { grants: ['webhooks:read', 'webhooks:write'] })).key);
    const denied = await writer.post('/webhooks', { url: r.url });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'escalation_denied', missingPermissions: ['events:read'] });
    const id = (await api.post('/webhooks', { url: r.url })).body.id;
    expect((await writer.patch(`/webhooks/${id}`, { url: `${r.url}?b` })).body.code).toBe('escalation_denied');
    expect((await writer.patch(`/webhooks/${id}`, { description: 'fine' })).status).toBe(200);
    expect((await writer.post(`/webhooks/${id}/test`)).body.code).toBe('escalation_denied');
    const reader = client(app, (await seedUserWithKey(app, { grants: ['webhooks:read'] })).key);
    expect((await reader.get(`/webhooks/${id}`)).status).toBe(200);
    expect((await reader.del(`/webhooks/${id}`)).body).toMatchObject({ code: 'forbidden', missingPermission: 'webhooks:write' });
    await api.del(`/webhooks/${id}`);
  });
});

describe('delivery features', () => {
  it('rotation: during the overlap both secrets verify, after it only the new one; retry one; replay from a feed cursor', { timeout: 60_000 }, async () => {
    allowPrivate(true);
    run = dispatcher(app.db.orm, { clock: time.clock, allowPrivate: true });
    const created = await api.post('/webhooks', { url: r.url, types: ['TensionSensed'] });
    const id = created.body.id;
    const old = created.body.secret;
    const rotated = await api.post(`/webhooks/${id}/rotate-secret`, { overlapSeconds: 3600 });
    expect(rotated.status).toBe(201);
    const fresh = rotated.body.secret;
    expect(fresh).not.toBe(old);
    expect(new Date(rotated.body.previousSecretExpiresAt).getTime()).toBe(time.now() + 3_600_000);
    const before = r.received.length;
    await api.post(`/webhooks/${id}/test`);
    await until(() => r.received.length === before + 1, 'the test message');
    const during = r.received[before];
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(old, during)).toBe(true);
    expect(verifies(fresh, during)).toBe(true);
    time.advance(3_600_001);
    await api.post(`/webhooks/${id}/test`);
    await until(() => r.received.length === before + 2, 'the second test message');
    const after = r.received[before + 1];
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(old, after)).toBe(false);
    expect(verifies(fresh, after)).toBe(true);
    expect((await api.get(`/webhooks/${id}`)).body.previousSecretExpiresAt).toBeNull();
    // rotated without overlap: the old secret stops at once
    const now = (await api.post(`/webhooks/${id}/rotate-secret`)).body.secret;
    await api.post(`/webhooks/${id}/test`);
    await until(() => r.received.length === before + 3, 'the third test message');
    expect(verifies(fresh, r.received[before + 2])).toBe(false);
    expect(verifies(now, r.received[before + 2])).toBe(true);

    // retry one: a succeeded delivery is sent once more, with the same webhook-id
    const first = (await api.get(`/webhooks/${id}/deliveries`)).body.data.at(-1);
    const retried = await api.post(`/webhooks/${id}/deliveries/${first.id}/retry`);
    expect(retried.status).toBe(202);
    await until(() => r.received.length === before + 4, 'the retried message');
    expect(r.received[before + 4 - 1].headers['webhook-id']).toBe(r.received[before].headers['webhook-id']);

    // events committed before the endpoint existed are not sent, until replayed from a cursor
    const actorId = await newActor(api, 'Replay Org');
    const early = [await newTension(api, { name: 'R1', actorId }), await newTension(api, { name: 'R2', actorId })];
    await until(() => r.received.length === before + 6, 'the two new events');
    const feed = await api.get('/events?types=TensionSensed');
    const sensed = feed.body.data.map((e: { id: string }) => e.id);
    expect(sensed.slice(-2)).toEqual(early.map(() => expect.any(String)));
    const cursorAfterFirst = (await api.get('/events?types=TensionSensed&limit=1')).body.nextCursor;
    const replay = await api.post(`/webhooks/${id}/replay`, { after: cursorAfterFirst });
    expect(replay.status, JSON.stringify(replay.body)).toBe(202);
    expect(replay.body).toEqual({ queued: sensed.length - 1, nextCursor: null });
    await until(() => r.received.length === before + 6 + sensed.length - 1, 'the replayed events');
    expect(
      r
        .ids()
        .slice(-(sensed.length - 1))
        .sort(),
    ).toEqual(sensed.slice(1).sort());
    await run.stop();
  });

  it('the secrets never reach a list, the logs, the audit trail or an export', async () => {
    allowPrivate(true);
    const created = await api.post('/webhooks', { url: r.url });
    const rotated = await api.post(`/webhooks/${created.body.id}/rotate-secret`, { overlapSeconds: 60 });
    const secrets = [created.body.secret, rotated.body.secret];
    const answers = JSON.stringify([
      (await api.get('/webhooks?limit=100')).body,
      (await api.get(`/webhooks/${created.body.id}`)).body,
      (await api.get('/audit?limit=100')).body,
      (await api.gql('{ webhooks(limit: 100) { data { id url } } auditLog(limit: 100) { data { changes } } }')).body,
    ]);
    let dump = '';
    await app.em().transactional(async (tx) => {
      for await (const { text } of exportRows(tx, [], new Date())) dump += text;
    });
    expect(dump.length).toBeGreaterThan(100);
    for (const s of secrets) {
      const core = s.slice('whsec_'.length);
      expect(answers).not.toContain(core);
      expect(logs).not.toContain(core);
      expect(dump).not.toContain(core);
    }
    expect(logs.length).toBeGreaterThan(1000);
  });
});
