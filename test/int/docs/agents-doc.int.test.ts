// docs/agents.md runs as written: its sh blocks, in order, in one POSIX sh (dash here, not bash) against a real
// server, twice (the guide is re-runnable); its MCP snippets connect.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { onPostgres } from '../../support/database.js';
import { mcpStdioClient } from '../../support/mcp.js';
import { migrate, openDatabase } from '../../../server/persistence/database.js';

const DOC = resolve('docs/agents.md');
const blocksOf = (markdown: string, lang: string) => [...markdown.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);

let app: TestApp;
/** embedded only: the data folder the app's database lives in, so a child process can open it after the app */
let dataDir: string | undefined;
let markdown: string;
/** stdout of each sh block, in order */
let outputs: string[];
/** the shell variables the guide set, read after its last block */
let vars: Record<string, string>;

beforeAll(async () => {
  if (onPostgres) app = await startTestApp();
  else {
    dataDir = await mkdtemp(join(tmpdir(), 'agents-doc-'));
    const db = await openDatabase({ dataDir, poolMax: 4 });
    await migrate(db.orm);
    app = await startTestApp({}, {}, db);
  }
  markdown = await readFile(DOC, 'utf8');
  const blocks = blocksOf(markdown, 'sh');
  // One shell for all blocks, as a reader would type them; markers split the output per block.
  const script = [
    ...blocks.map((b, i) => `echo '@@block ${i}@@'\n${b}`),
    `echo '@@vars@@'`,
    `printf '%s=%s\\n' ACTOR_ID "$ACTOR_ID" ROLE_ID "$ROLE_ID" AGENT_ID "$AGENT_ID" KEY_ID "$KEY_ID" OLD_KEY "$(printf '%s' "$KEY_JSON" | jq -r .key)" NEW_KEY "$NEW_KEY" TENSION_ID "$TENSION_ID" RUN "$RUN"`,
  ].join('\n');
  // `sh` is dash on Debian and Ubuntu: a bashism (`<<<`, `[[`, arrays, pipefail) fails here as it would for a reader.
  const run = () =>
    promisify(execFile)('sh', ['-eu', '-c', script], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', MARKET_URL: app.url, ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password },
      timeout: 60_000,
    });
  // Twice on the same server: a reader who runs the guide again must not hit code_taken or email_taken.
  const first = await run();
  const { stdout } = await run();
  expect(stdout.split('@@vars@@\n')[1]).not.toEqual(first.stdout.split('@@vars@@\n')[1]);
  const [before, after] = stdout.split('@@vars@@\n');
  outputs = before.split(/@@block \d+@@\n/).slice(1);
  expect(outputs).toHaveLength(blocks.length);
  vars = Object.fromEntries(
    after
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}, 120_000);
let closed = false;
afterAll(async () => {
  if (!closed) await app?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const outputOf = (marker: string) => {
  const found = outputs.find((o) => o.includes(marker));
  expect(found, `no block printed ${marker}`).toBeDefined();
  return found!;
};

describe('docs/agents.md, run as written', () => {
  it('has the steps the guide promises, each in a runnable block', () => {
    expect(outputs.length).toBeGreaterThanOrEqual(9);
    expect(outputOf('signed in as')).toContain(`<${ADMIN.email}>`);
    for (const name of ['ACTOR_ID', 'ROLE_ID', 'AGENT_ID', 'KEY_ID', 'TENSION_ID']) expect(vars[name], name).toMatch(/^[0-9a-f-]{36}$/);
    expect(vars.RUN).toMatch(/^\d{14}-\d+$/);
    // every curl shows the problem document of a refusal; the stdio settings come with their warning
    const curls =
      blocksOf(markdown, 'sh')
        .join('\n')
        .match(/curl [^\n]*/g) ?? [];
    expect(curls.length).toBeGreaterThan(3);
    for (const c of curls) if (!c.includes('-o /dev/null')) expect(c).toContain('--fail-with-body');
    expect(markdown).toMatch(/Warning: the stdio settings hand the AI host your database credentials/);
    expect(markdown).toMatch(/safer setup is Streamable HTTP with a scoped key/);
    expect(vars.OLD_KEY).toMatch(/^mk_/);
    expect(vars.NEW_KEY).toMatch(/^mk_/);
  });

  it('made a scoped agent: its key authenticates as the agent with exactly the role permissions', async () => {
    const me = JSON.parse(outputOf('"authenticatedBy"').trim());
    expect({ ...me, permissions: [...me.permissions].sort() }).toEqual({
      user: 'Tension bot',
      type: 'agent',
      authenticatedBy: 'api_key',
      permissions: ['actors:read', 'tensions:read', 'tensions:write'],
    });
    const admin = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['*'] })).key);
    const agent = await admin.get(`/users/${vars.AGENT_ID}`);
    expect(agent.body).toMatchObject({
      type: 'agent',
      email: `tension-bot-${vars.RUN}@example.com`,
      roles: [{ id: vars.ROLE_ID, code: `tension-agent-${vars.RUN}` }],
    });
  });

  it('sensed, rescored and resolved the tension through REST, and printed its history', async () => {
    const admin = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['*'] })).key);
    const tension = await admin.get(`/tensions/${vars.TENSION_ID}`);
    expect(tension.body).toMatchObject({ name: 'Settlement takes three days', actorId: vars.ACTOR_ID, score: 8, state: 'resolved', version: 3 });
    const history = await admin.get(`/tensions/${vars.TENSION_ID}/history`);
    expect(history.body.data.map((e: { type: string }) => e.type)).toEqual(['TensionResolved', 'TensionRescored', 'TensionSensed']);
    for (const e of history.body.data) expect(e.by).toMatchObject({ kind: 'agent', userId: vars.AGENT_ID, apiKeyName: 'tension-bot #1', via: 'rest' });
    expect(outputOf('v3 Resolved').trim().split('\n')).toEqual([
      `tension ${vars.TENSION_ID}`,
      '{"version":2,"event":"Score raised from 6 to 8"}',
      '{"state":"resolved","event":"Resolved"}',
      'v3 Resolved — Tension bot via rest',
      'v2 Score raised from 6 to 8 — Tension bot via rest',
      'v1 Tension sensed — Tension bot via rest',
    ]);
  });

  it('retried the sense with its Idempotency-Key: the first answer again, one tension; another body under the key refused', async () => {
    expect(outputOf('retried:').trim().split('\n')).toEqual([
      `retried: Idempotent-Replayed: true, same tension: {"id":"${vars.TENSION_ID}","version":1}`,
      '{"status":422,"code":"idempotency_key_reused"}',
    ]);
    const admin = client(app, (await seedUserWithKey(app, { type: 'agent', grants: ['*'] })).key);
    const ofActor = await admin.get(`/tensions?actorId=${vars.ACTOR_ID}`);
    expect(ofActor.body.data.map((t: { id: string }) => t.id)).toEqual([vars.TENSION_ID]);
  });

  it('rotated the key: the new one works, the old one gets 401 and is listed as revoked', async () => {
    expect(outputOf('new key works')).toContain('new key works: tension-bot #2');
    expect(outputOf('old key now answers')).toContain('old key now answers 401');
    expect((await client(app, vars.OLD_KEY).get('/auth/me')).status).toBe(401);
    expect((await client(app, vars.NEW_KEY).get('/auth/me')).body).toMatchObject({ user: { id: vars.AGENT_ID }, apiKey: { name: 'tension-bot #2' } });
    expect(outputOf('tension-bot #1: revoked')).toContain('tension-bot #2: active');
  });
});

describe('the MCP client snippets', () => {
  const snippets = () => blocksOf(markdown, 'json').map((j) => JSON.parse(j) as { mcpServers: Record<string, Record<string, any>> });

  it('the Streamable HTTP settings connect with the agent key and show its tools and the tension history', async () => {
    const http = snippets()
      .map((s) => s.mcpServers.market)
      .find((s) => s.type === 'http')!;
    expect(http.url).toBe('http://127.0.0.1:3000/mcp');
    const url = new URL(http.url.replace('http://127.0.0.1:3000', app.url));
    const headers = Object.fromEntries(
      Object.entries(http.headers as Record<string, string>).map(([k, v]) => [k, v.replace('${MARKET_API_KEY}', vars.NEW_KEY)]),
    );
    const mcp = new Client({ name: 'agents-doc', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    try {
      const names = (await mcp.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['whoami', 'sense_tension', 'rescore_tension', 'resolve_tension', 'get_tension_history']));
      expect(names).not.toContain('discard_tension');
      const history = await mcp.callTool({ name: 'get_tension_history', arguments: { id: vars.TENSION_ID } });
      expect((history.structuredContent as { data: unknown[] }).data).toHaveLength(3);
    } finally {
      await mcp.close();
    }
  });

  it('the stdio settings start `market-service mcp` with the key in MARKET_API_KEY', async () => {
    const stdio = snippets()
      .map((s) => s.mcpServers.market)
      .find((s) => s.command)!;
    expect(stdio.command).toBe('node');
    expect(stdio.args).toEqual(['/path/to/market-service/bin/market-service.js', 'mcp']);
    expect(Object.keys(stdio.env).sort()).toEqual(['DATABASE_URL', 'MARKET_API_KEY']);
    // The same settings against this server's database (sources instead of the build). The embedded
    // database belongs to one process, so there the app hands its data folder over to the child first.
    let env: Record<string, string>;
    if (onPostgres) env = { DATABASE_URL: app.db.url! };
    else {
      await app.close();
      closed = true;
      env = { DATA_DIR: dataDir! };
    }
    const mcp = await mcpStdioClient(vars.NEW_KEY, env);
    try {
      const whoami = await mcp.callTool({ name: 'whoami', arguments: {} });
      expect(whoami.structuredContent).toMatchObject({ user: { id: vars.AGENT_ID, type: 'agent' }, apiKey: { name: 'tension-bot #2' } });
      const history = await mcp.callTool({ name: 'get_tension_history', arguments: { id: vars.TENSION_ID } });
      expect((history.structuredContent as { data: unknown[] }).data).toHaveLength(3);
    } finally {
      await mcp.close();
    }
  }, 60_000);
});
