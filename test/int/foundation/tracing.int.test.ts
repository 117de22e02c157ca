// Traces (SPEC §9): one trace per request, with the HTTP span, the GraphQL operation, the use case and
// its SQL statements nested under it, and the trace id in the log lines; spans caught in memory.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startTracing, sqlTracing } from '../../../server/tracing.js';
import { createLogger } from '../../../server/logger.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { newActor, newTension } from '../../support/tensions.js';

const exporter = new InMemorySpanExporter();
const logLines: Record<string, unknown>[] = [];
let stopTracing: () => Promise<void>;
let app: TestApp;

beforeAll(async () => {
  stopTracing = await startTracing({ serviceVersion: 'test', processors: [new SimpleSpanProcessor(exporter)] });
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  app = await startTestApp({ logLevel: 'info' }, { logger: createLogger('info', sink) });
  sqlTracing(app.deps.orm);
});
afterAll(async () => {
  await app?.close();
  await stopTracing?.();
});

const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

/** Every span of `traceId`, and the chain of names from `span` up to the root. */
function lineage(spans: ReadableSpan[], span: ReadableSpan): string[] {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const names: string[] = [];
  for (let s: ReadableSpan | undefined = span; s; s = parentOf(s) ? byId.get(parentOf(s)!) : undefined) names.push(s.name);
  return names;
}

describe('tracing', () => {
  it('a REST rescore is one trace: the server span, the command span, its SQL statements beneath them; the access log carries the trace id', async () => {
    const agent = await seedUserWithKey(app, { grants: ['tensions:read', 'tensions:write', 'actors:write'] });
    const api = client(app, agent.key);
    const tension = await newTension(api, { name: 'Traced', actorId: await newActor(api, 'Org') });
    exporter.reset();
    const res = await api.post(`/tensions/${tension.id}/rescore`, { score: 9 });
    expect(res.status).toBe(200);

    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.name === 'POST /api/v1/tensions/:id/rescore');
    expect(server, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(server!.attributes['http.response.status_code']).toBe(200);
    const traceId = server!.spanContext().traceId;
    const sql = spans.filter((s) => s.name.startsWith('sql ') && s.spanContext().traceId === traceId);
    expect(sql.length).toBeGreaterThan(1);
    expect(sql.map((s) => s.name)).toContain('sql select api_keys'); // the bearer key's lookup
    expect(sql.map((s) => s.name)).toContain('sql with tensions'); // the command's one write: row and events
    const useCase = spans.find((s) => s.name === 'tension.rescore');
    expect(useCase?.attributes['market.outcome']).toBe('appended');
    expect(lineage(spans, useCase!)).toEqual(['tension.rescore', server!.name]);
    const inCommand = sql.filter((s) => lineage(spans, s).includes('tension.rescore'));
    expect(inCommand.map((s) => s.name)).toContain('sql with tensions');
    for (const s of sql) {
      expect(lineage(spans, s).at(-1)).toBe(server!.name);
      // never the statement's text, which carries the values bound to it
      expect(JSON.stringify(s.attributes)).not.toContain(tension.id);
    }
    const access = logLines.find((l) => l.msg === 'request' && l.path === `/api/v1/tensions/${tension.id}/rescore`);
    expect(access).toMatchObject({ traceId, status: 200, userId: agent.userId, apiKeyId: agent.keyId });
    // the access line is written apart from the request's logger (no redaction): it still names the request
    expect(access?.requestId).toBe(res.headers.get('x-request-id'));
    expect(access?.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a rescore the command lane leaves to Express (a key that does not authenticate) is still one span, its key lookup beneath it', async () => {
    const revoked = await seedUserWithKey(app, { grants: ['tensions:write'] });
    await app.em().execute('update api_keys set revoked_at = now() where id = ?', [revoked.keyId]);
    exporter.reset();
    const res = await fetch(`${app.url}/api/v1/tensions/00000000-0000-4000-8000-000000000000/rescore`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${revoked.key}` },
      body: JSON.stringify({ score: 3 }),
    });
    expect(res.status).toBe(401);
    const spans = exporter.getFinishedSpans();
    const servers = spans.filter((s) => s.name === 'POST /api/v1/tensions/:id/rescore');
    expect(servers.map((s) => s.attributes['http.response.status_code'])).toEqual([401]);
    const lookup = spans.find((s) => s.name === 'sql select api_keys');
    expect(lookup, spans.map((s) => s.name).join(', ')).toBeDefined();
    // its parent is the request's span, which ended and was exported: not a span that never ends
    expect(lineage(spans, lookup!)).toEqual(['sql select api_keys', servers[0].name]);
  });

  it('continues the trace a caller sends in `traceparent`, and nests a GraphQL operation under the request', async () => {
    const agent = await seedUserWithKey(app, { grants: ['tensions:read'] });
    exporter.reset();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.key}`, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      body: JSON.stringify({ query: 'query Few { tensions(limit: 1) { nextCursor } }', operationName: 'Few' }),
    });
    expect(res.status).toBe(200);
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const op = spans.find((s) => s.name === 'graphql Few');
    expect(op, spans.map((s) => s.name).join(', ')).toBeDefined();
    expect(lineage(spans, op!)).toEqual(['graphql Few', 'POST /graphql']);
    expect(spans.some((s) => s.name.startsWith('sql ') && lineage(spans, s).includes('graphql Few'))).toBe(true);
  });
});
