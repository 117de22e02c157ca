// The full tension lifecycle over stdio (`market-service mcp` as a child process), then checked through REST.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedDeps, seedUserWithKey, systemCtx, unwrap, type SeededUser } from '../../support/clients.js';
import { createActor } from '../../../server/application/actors/actors.js';
import type { Deps } from '../../../server/application/context.js';
import { onPostgres } from '../../support/database.js';
import { mcpStdioClient } from '../../support/mcp.js';
import { runTensionLifecycle, type LifecycleIds, type LifecycleOutcome } from '../../support/mcp-lifecycle.js';
import { migrate, openDatabase } from '../../../server/persistence/database.js';

let app: TestApp | undefined;
let dataDir: string | undefined;
let agent: SeededUser;
let ids: LifecycleIds;
let outcome: LifecycleOutcome;

async function seedActor(deps: Deps, name: string): Promise<string> {
  return unwrap(await createActor(deps, systemCtx(), { name, type: 'organization' }), 'seed actor').id;
}

async function seed(deps: Deps): Promise<void> {
  agent = await seedUserWithKey({ deps }, { type: 'agent', grants: ['tensions:*', 'actors:read'], name: 'Stdio bot' });
  const lead = await seedUserWithKey({ deps }, { type: 'human', grants: [], name: 'Bea' });
  ids = { actorA: await seedActor(deps, 'Org A'), actorB: await seedActor(deps, 'Org B'), leadUserId: lead.userId };
}

beforeAll(async () => {
  let env: Record<string, string>;
  if (onPostgres) {
    app = await startTestApp();
    await seed(app.deps);
    env = { DATABASE_URL: app.db.url! };
  } else {
    // The embedded database belongs to one process: the stdio server gets the data folder first, the app after.
    dataDir = await mkdtemp(join(tmpdir(), 'mcp-stdio-'));
    const db = await openDatabase({ dataDir, poolMax: 2 });
    await migrate(db.orm);
    await seed(seedDeps(db));
    await db.close();
    env = { DATA_DIR: dataDir };
  }
  let stdio: Client | undefined;
  try {
    stdio = await mcpStdioClient(agent.key, env);
    outcome = await runTensionLifecycle(stdio, ids);
  } finally {
    await stdio?.close();
  }
  if (!app) {
    const db = await openDatabase({ dataDir: dataDir!, poolMax: 4 });
    app = await startTestApp({}, {}, db);
  }
}, 180_000);

afterAll(async () => {
  await app?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it('runs sense → … → discard over stdio, each step answering the REST shape', async () => {
  const admin = await seedUserWithKey(app!, { type: 'agent', grants: ['*'] });
  const rest = client(app!, admin.key);
  const sensed = await rest.post('/tensions', { name: 'Reference', actorId: ids.actorA });
  expect(sensed.status).toBe(201);
  for (const step of outcome.steps) {
    expect(Object.keys(step.result).sort(), step.tool).toEqual(Object.keys(sensed.body).sort());
    expect(Object.keys(step.result.tension!).sort(), step.tool).toEqual(Object.keys(sensed.body.tension).sort());
    expect(Object.keys(step.result.event!).sort(), step.tool).toEqual(Object.keys(sensed.body.event).sort());
  }
});

it('leaves the history REST reads, every entry by the agent via mcp', async () => {
  const admin = await seedUserWithKey(app!, { type: 'agent', grants: ['*'] });
  const rest = client(app!, admin.key);
  expect((await rest.get(`/tensions/${outcome.tensionId}`)).status).toBe(404);
  const history = await rest.get(`/tensions/${outcome.tensionId}/history?limit=100`);
  expect(history.status).toBe(200);
  expect(history.body.data).toEqual([outcome.discard.event, ...outcome.history]);
  expect(history.body.data.map((e: { type: string }) => e.type)).toEqual([
    'TensionDiscarded',
    'TensionRevived',
    'TensionDropped',
    'TensionReopened',
    'TensionResolved',
    'TensionReassigned',
    'TensionLeadAssigned',
    'TensionContextRevised',
    'TensionRescored',
    'TensionRenamed',
    'TensionSensed',
  ]);
  for (const e of history.body.data) {
    expect(e.by).toEqual({ kind: 'agent', userId: agent.userId, userName: 'Stdio bot', apiKeyName: 'Stdio bot key', via: 'mcp' });
  }
});
