// docs/events.md runs as written: its sh blocks (the feed: pages, long poll, SSE, GraphQL subscription),
// in order, in one bash against a real server; on PostgreSQL also its bash blocks (the relay as its own
// process, and the example JetStream consumer against the real NATS).
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { seedUserWithKey } from '../../support/clients.js';
import { onPostgres } from '../../support/database.js';
import { deleteStream, NATS_URL, natsOrNull, testStream } from '../../support/nats.js';
import { cliCommand } from '../../support/builds.js';

const DOC = resolve('docs/events.md');
const blocksOf = (markdown: string, lang: string) => [...markdown.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);

const nats = await natsOrNull();
const runRelayBlocks = onPostgres && 'nc' in nats;
if (!runRelayBlocks)
  console.warn(
    `docs/events.md: relay blocks not run (${onPostgres ? ('reason' in nats ? nats.reason : '') : 'the relay runs as its own process, which needs PostgreSQL'})`,
  );

let app: TestApp;
let shim: string;
let outputs: string[];
const { stream, prefix } = testStream();

beforeAll(async () => {
  app = await startTestApp();
  const key = (await seedUserWithKey(app, { grants: ['events:read', 'tensions:*', 'actors:*'] })).key;
  const markdown = await readFile(DOC, 'utf8');
  const blocks = [...blocksOf(markdown, 'sh'), ...(runRelayBlocks ? blocksOf(markdown, 'bash') : [])];
  // `market-service` as a reader has it installed: the built CLI, rebuilt first if these sources are newer.
  shim = await mkdtemp(join(tmpdir(), 'events-doc-'));
  const [node, args] = cliCommand([]);
  await writeFile(join(shim, 'market-service'), `#!/bin/sh\nexec ${[node, ...args].map((a) => `"${a}"`).join(' ')} "$@"\n`);
  await chmod(join(shim, 'market-service'), 0o755);
  const script = blocks.map((b, i) => `echo '@@block ${i}@@'\n${b}`).join('\n');
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], {
    env: {
      PATH: `${shim}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? '/tmp',
      MARKET_URL: app.url,
      MARKET_API_KEY: key,
      LOG_LEVEL: 'warn',
      ...(runRelayBlocks ? { DATABASE_URL: app.db.url!, NATS_URL, NATS_STREAM: stream, NATS_SUBJECT_PREFIX: prefix } : {}),
    },
    timeout: 90_000,
  });
  outputs = stdout.split(/@@block \d+@@\n/).slice(1);
  expect(outputs).toHaveLength(blocks.length);
}, 150_000);
afterAll(async () => {
  if ('nc' in nats) {
    await deleteStream(nats.nc, stream);
    await nats.nc.close();
  }
  await app?.close();
  if (shim) await rm(shim, { recursive: true, force: true });
});

describe('docs/events.md, run as written', () => {
  it('pages the feed, and the long poll sees the tension sensed after `after=now`', () => {
    expect(outputs[0]).toMatch(/\{"events":\d+,"nextCursor":true\}/);
    expect(outputs[1]).toMatch(/^TensionSensed [0-9a-f-]{36} v1$/m);
  });

  it('the SSE stream resumed from the cursor shows the rescore; the GraphQL subscription shows it too', () => {
    expect(outputs[2]).toContain('event: TensionRescored');
    expect(JSON.parse(outputs[3].trim())).toMatchObject({ type: 'TensionRescored', version: 2 });
  });

  it.skipIf(!runRelayBlocks)('the relay publishes to JetStream and the example consumer prints the events', () => {
    const lines = outputs[4].trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[lines.length - 1]).toMatch(new RegExp(`^\\d+ ${prefix.replace('.', '\\.')}\\.tension\\.TensionRescored [0-9a-f-]{36} [0-9a-f-]{36} v2$`));
  });
});
