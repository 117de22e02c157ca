// The official MCP conformance suite (@modelcontextprotocol/conformance) against /mcp of the real app,
// offline. Scenarios that need the suite's demo tools, resources or prompts (which a market service does
// not have) are listed in mcp-conformance.expected.yml: the suite fails the run on a scenario that fails
// and is not listed, and on one that is listed but passes, so either change is noticed here.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { seedUserWithKey } from '../../support/clients.js';

const EXPECTED = 'test/int/mcp/mcp-conformance.expected.yml';
const CLI = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');

let app: TestApp;
let proxy: Server;
let proxyUrl: string;
let outDir: string;

/**
 * The suite's client sends no credentials, and /mcp needs a key (SPEC §8): this loopback proxy adds one to
 * each request that has none and passes everything else (Host, Origin, the body) through unchanged.
 */
async function keyAddingProxy(target: URL, key: string): Promise<Server> {
  const server = createServer((req, res) => {
    const headers = { ...req.headers, authorization: req.headers.authorization ?? `Bearer ${key}` };
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function runSuite(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', './test/support/conformance/node20.mjs', CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

beforeAll(async () => {
  app = await startTestApp();
  const agent = await seedUserWithKey(app, { type: 'agent', grants: ['*'], name: 'Conformance agent' });
  proxy = await keyAddingProxy(new URL(app.url), agent.key);
  const address = proxy.address() as { port: number };
  proxyUrl = `http://127.0.0.1:${address.port}/mcp`;
  outDir = await mkdtemp(join(tmpdir(), 'mcp-conformance-'));
});
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await app?.close();
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

describe('MCP conformance suite', () => {
  it('passes every server scenario that applies to this server; the others are listed as not applicable', async () => {
    const { code, output } = await runSuite(['server', '--url', proxyUrl, '--expected-failures', EXPECTED, '-o', outDir]);
    expect(code, output).toBe(0);
    // Every scenario ran and left its checks: a suite that silently ran nothing would also exit 0.
    const listed = (await readFile(EXPECTED, 'utf8')).split('\n').filter((line) => /^\s+- /.test(line));
    const ran = await readdir(outDir);
    expect(ran.length, output).toBeGreaterThan(listed.length);
    for (const scenario of ['server-initialize', 'tools-list', 'dns-rebinding-protection']) {
      expect(
        ran.some((dir) => dir.startsWith(`server-${scenario}-`)),
        `${scenario} ran\n${output}`,
      ).toBe(true);
    }
  }, 300_000);
});
