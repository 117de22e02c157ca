// docs/webhooks.md runs as written: its sh block creates an endpoint against a real server, and its js
// receiver, run as its own process, verifies every message the dispatcher sends and refuses a forged one.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { freePort } from '../../support/process.js';
import { newActor, newTension } from '../../support/tensions.js';
import { dispatcher, testClock, until } from '../../support/webhooks.js';
import type { RunningDispatcher } from '../../../server/application/webhooks/dispatcher.js';

const DOC = resolve('docs/webhooks.md');
const blocksOf = (markdown: string, lang: string) => [...markdown.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);

let app: TestApp;
let dir: string;
let receiver: ChildProcess | undefined;
let run: RunningDispatcher | undefined;
let output = '';

beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true });
  // inside the project, so the receiver's `import 'standardwebhooks'` finds the package as a reader's would
  dir = await mkdtemp(join(resolve('.'), '.webhooks-doc-'));
});
afterAll(async () => {
  await run?.stop();
  receiver?.kill('SIGKILL');
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('docs/webhooks.md, run as written', () => {
  it('creates an endpoint with curl; the receiver verifies every message and refuses a forged one', { timeout: 60_000 }, async () => {
    const markdown = await readFile(DOC, 'utf8');
    const [create] = blocksOf(markdown, 'sh');
    const [receiverJs] = blocksOf(markdown, 'js');
    const key = (await seedUserWithKey(app, { grants: ['webhooks:*', 'events:read', 'tensions:*', 'actors:*'] })).key;
    const port = await freePort();
    const receiverUrl = `http://127.0.0.1:${port}/webhooks`;
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', create], {
      env: { PATH: process.env.PATH ?? '', MARKET_URL: app.url, MARKET_API_KEY: key, RECEIVER_URL: receiverUrl },
    });
    const endpoint = JSON.parse(stdout);
    expect(endpoint).toMatchObject({ url: receiverUrl, types: ['TensionSensed', 'TensionResolved'], enabled: true });

    await writeFile(join(dir, 'receiver.mjs'), receiverJs);
    receiver = spawn(process.execPath, [join(dir, 'receiver.mjs')], {
      env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: endpoint.secret, PORT: String(port) },
    });
    receiver.stdout!.on('data', (d) => (output += d));
    receiver.stderr!.on('data', (d) => (output += d));
    await until(
      async () =>
        fetch(receiverUrl, { method: 'POST', body: '{}' }).then(
          (r) => r.status === 400,
          () => false,
        ),
      'the receiver listening',
    );

    const time = testClock();
    run = dispatcher(app.db.orm, { clock: time.clock });
    const api = client(app, key);
    const actorId = await newActor(api, 'Doc Org');
    const tension = await newTension(api, { name: 'Pushed', actorId });
    expect((await api.post(`/tensions/${tension.id}/rescore`, { score: 9 })).status).toBe(200); // not in `types`
    expect((await api.post(`/tensions/${tension.id}/resolve`)).status).toBe(200);
    const test = await api.post(`/webhooks/${endpoint.id}/test`);
    await until(() => output.split('\n').filter((l) => l.startsWith('verified')).length >= 3, 'three verified messages');
    expect(output).toMatch(new RegExp(`^verified TensionSensed [0-9a-f-]{36}$`, 'm'));
    expect(output).toMatch(/^verified TensionResolved [0-9a-f-]{36}$/m);
    expect(output).toContain(`verified webhook.test msg_${test.body.id}`);
    expect(output).not.toContain('TensionRescored');

    // a forged message: signed with another secret
    const forged = await fetch(receiverUrl, {
      method: 'POST',
      headers: {
        'webhook-id': 'msg_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      },
      body: '{"type":"webhook.test"}',
    });
    expect(forged.status).toBe(400);
    expect(output).not.toContain('msg_forged');
    // The receiver prints a line when it answers; the dispatcher writes that answer with the next round's
    // outcomes, so the log shows it a moment later.
    const outcomes = async () =>
      ((await api.get(`/webhooks/${endpoint.id}/deliveries`)).body.data as { status: string; lastResponseStatus: number }[]).map(
        (d) => `${d.status} ${d.lastResponseStatus}`,
      );
    await expect.poll(outcomes).toEqual(['succeeded 204', 'succeeded 204', 'succeeded 204']);
  });
});
