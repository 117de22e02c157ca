// A client generated from the live OpenAPI document compiles against ordinary calls and works against the
// real app: openapi-typescript turns /api/v1/openapi.json into types, tsc checks a file of typical
// openapi-fetch calls, the example in docs/rest.md, and a file of calls that must NOT compile; then the
// typical calls run.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { seedUserWithKey } from '../../support/clients.js';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => readFileSync(join(here, 'openapi-client', name), 'utf8');
/** The TypeScript example of docs/rest.md (its one ```ts block). */
const docExample = () => /```ts\n([\s\S]*?)```/.exec(readFileSync(join(here, '../../../docs/rest.md'), 'utf8'))![1];

/**
 * A GET on a connection of its own, closed after the answer. The type checks below block this process for
 * seconds; a kept-alive connection from before them would then race the server's keep-alive timeout when
 * the calls reuse it (ECONNRESET, seen under a loaded full run).
 */
function getWithoutKeepAlive(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

let app: TestApp;
/** Inside the repository so `openapi-fetch` resolves from its node_modules; a dot directory, so no tsconfig glob picks it up. */
let dir: string;

beforeAll(async () => {
  app = await startTestApp();
  dir = mkdtempSync(join(here, '.generated-client-'));
  const doc = await getWithoutKeepAlive(`${app.url}/api/v1/openapi.json`);
  expect(doc.status).toBe(200);
  const types = astToString(await openapiTS(JSON.parse(doc.body) as Parameters<typeof openapiTS>[0]));
  writeFileSync(join(dir, 'api.ts'), types);
  writeFileSync(join(dir, 'calls.ts'), fixture('calls.ts.txt'));
  writeFileSync(join(dir, 'wrong-calls.ts'), fixture('wrong-calls.ts.txt'));
  writeFileSync(join(dir, 'doc-example.ts'), docExample());
});
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await app?.close();
});

/** tsc's diagnostics for `files`, as `file:line: message`. */
function typeCheck(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describe('a client generated with openapi-typescript + openapi-fetch', () => {
  it('type-checks typical calls and the example of docs/rest.md, and refuses calls the API would refuse', () => {
    expect(docExample()).toContain("api.DELETE('/tensions/{id}'");
    expect(typeCheck([join(dir, 'calls.ts'), join(dir, 'doc-example.ts'), join(dir, 'wrong-calls.ts')])).toEqual([]);
  });

  it('the wrong calls are type errors without their @ts-expect-error', () => {
    // Proves the check above can fail: stripped of the directives, each wrong call is reported.
    const bare = fixture('wrong-calls.ts.txt').replace(/^\s*\/\/ @ts-expect-error.*$/gm, '');
    writeFileSync(join(dir, 'wrong-bare.ts'), bare);
    const errors = typeCheck([join(dir, 'wrong-bare.ts')]);
    const expected = fixture('wrong-calls.ts.txt').match(/^\s*\/\/ @ts-expect-error/gm)!.length;
    expect(new Set(errors.map((e) => e.split(':')[1])).size).toBe(expected);
  });

  it('runs the typical calls against the app with the answers their types promise', async () => {
    const admin = await seedUserWithKey(app, { type: 'agent', grants: ['*'] });
    const calls = (await import(pathToFileURL(join(dir, 'calls.ts')).href)) as { scenario(url: string, key: string): Promise<Record<string, unknown>> };
    const out = await calls.scenario(app.url, admin.key);
    expect(out).toMatchObject({
      keyPrefix: expect.stringMatching(/^mk_/),
      renamed: 'Slower settlement',
      resolved: 'resolved',
      state: 'alive',
      fetchedName: 'Slower settlement',
      names: ['Slower settlement'],
      actorCount: 1,
      roleCodes: expect.arrayContaining([expect.stringMatching(/^bot-/)]),
      keyNames: ['ci'],
      meId: expect.any(String),
      discardedStatus: 204,
      goneCode: 'not_found',
      eventsCursor: expect.any(String),
    });
    expect(out.currentVersion).toBeGreaterThan(1);
    // history is newest first, the feed oldest first: the same events either way
    expect(out.types).toEqual(expect.arrayContaining(['TensionSensed', 'TensionRenamed', 'TensionResolved', 'TensionRevived']));
    expect(out.eventTypes).toEqual([...(out.types as string[])].reverse());
  });
});
