// SPEC §7: a body over 102,400 bytes is 413 `payload_too_large` on every face, counted as received, so a
// chunked body without Content-Length is refused too; a body of exactly the limit is served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { seedUserWithKey, type SeededUser } from '../../support/clients.js';
import { MCP_HEADERS, paddedJson, raw } from '../../support/raw-http.js';
import { BODY_LIMIT_BYTES } from '../../../server/http/body.js';

let app: TestApp;
let admin: SeededUser;

beforeAll(async () => {
  app = await startTestApp();
  admin = await seedUserWithKey(app, { grants: ['*'] });
});
afterAll(async () => {
  await app?.close();
});

/** The body as a stream of 8 KiB chunks: fetch sends it chunked, without Content-Length. */
function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, (at += 8192)));
    },
  });
}

const FACES = {
  graphql: { path: '/graphql', headers: { 'content-type': 'application/json' }, doc: { query: '{ __typename }' } },
  mcp: { path: '/mcp', headers: MCP_HEADERS, doc: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } } },
  rest: { path: '/api/v1/actors', headers: { 'content-type': 'application/json' }, doc: { name: 'Sized actor', type: 'organization' } },
} as const;

function send(face: keyof typeof FACES, body: string | ReadableStream<Uint8Array>) {
  const f = FACES[face];
  return raw(app, 'POST', f.path, { ...f.headers, authorization: `Bearer ${admin.key}` }, body);
}

function expectTooLarge(face: keyof typeof FACES, res: Awaited<ReturnType<typeof send>>) {
  expect(res.status, `${face}: ${res.text.slice(0, 200)}`).toBe(413);
  if (face === 'graphql') expect(res.json.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  if (face === 'mcp') expect(res.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { data: { code: 'payload_too_large' } } });
  if (face === 'rest') expect(res.json).toMatchObject({ status: 413, code: 'payload_too_large' });
}

describe('body limits', () => {
  it('serves a body of exactly 102,400 bytes on /graphql, /mcp and REST', async () => {
    expect(BODY_LIMIT_BYTES).toBe(102_400);
    const graphql = await send('graphql', paddedJson(FACES.graphql.doc, BODY_LIMIT_BYTES));
    expect(graphql.status, graphql.text.slice(0, 200)).toBe(200);
    expect(graphql.json.data.__typename).toBe('Query');
    const mcp = await send('mcp', paddedJson(FACES.mcp.doc, BODY_LIMIT_BYTES));
    expect(mcp.status, mcp.text.slice(0, 200)).toBe(200);
    expect(mcp.json.result.structuredContent.user.id).toBe(admin.userId);
    const rest = await send('rest', paddedJson(FACES.rest.doc, BODY_LIMIT_BYTES));
    expect(rest.status, rest.text.slice(0, 200)).toBe(201);
  });

  it("refuses a body one byte over the limit with 413 in each face's shape", async () => {
    for (const face of ['graphql', 'mcp', 'rest'] as const) expectTooLarge(face, await send(face, paddedJson(FACES[face].doc, BODY_LIMIT_BYTES + 1)));
  });

  it('refuses a chunked body without Content-Length once it passes the limit, and serves a chunked one under it', async () => {
    for (const face of ['graphql', 'mcp', 'rest'] as const) {
      expectTooLarge(face, await send(face, chunked(paddedJson(FACES[face].doc, BODY_LIMIT_BYTES + 1))));
      expectTooLarge(face, await send(face, chunked(paddedJson(FACES[face].doc, 20 * BODY_LIMIT_BYTES))));
      const under = await send(face, chunked(paddedJson(FACES[face].doc, BODY_LIMIT_BYTES - 1)));
      expect(under.status, `${face}: ${under.text.slice(0, 200)}`).toBeLessThan(300);
    }
  });
});
