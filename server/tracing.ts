// OpenTelemetry traces (SPEC §9): spans for HTTP requests, GraphQL operations, use cases and SQL, exported
// over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set. Without a registered provider every call below is
// the API's no-op, so the instrumentation costs next to nothing when tracing is off.
import { context, INVALID_SPAN_CONTEXT, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { laneFindings } from './http/lane-handover.js';

export const tracer = () => trace.getTracer('market-service');

/** An exporter that drops every batch: spans are still made, sampled and batched, then forgotten. */
const DROP = { export: (_spans: unknown, done: (r: { code: 0 }) => void) => done({ code: 0 }), shutdown: async () => undefined };

/** The active span's trace id, for log lines; undefined outside a traced request. */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span.spanContext().traceId : undefined;
}

/**
 * Registers the global tracer provider. `processors` is for tests (an in-memory exporter); otherwise
 * spans go over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT, which the exporter reads from the environment
 * itself (with the other standard OTEL_* variables). Returns the shutdown that flushes pending spans and unregisters the provider.
 */
export async function startTracing(opts: { serviceVersion: string; exporter?: 'otlp' | 'none'; processors?: SpanProcessor[] }): Promise<() => Promise<void>> {
  const [{ NodeTracerProvider, BatchSpanProcessor }, { resourceFromAttributes }, { OTLPTraceExporter }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'market-service', 'service.version': opts.serviceVersion }),
    spanProcessors: opts.processors ?? [new BatchSpanProcessor(opts.exporter === 'none' ? DROP : new OTLPTraceExporter())],
  });
  provider.register();
  tracing = true;
  return async () => {
    tracing = false;
    await provider.shutdown();
    // register() set the API's global tracer provider, context manager and propagator; a shut-down provider
    // left there would keep making (recording) spans, and a later startTracing in the same process would be
    // refused as a duplicate registration (the tests start and stop tracing per file in one worker process).
    trace.disable();
    context.disable();
    propagation.disable();
  };
}

/** Whether a tracer provider is registered (startTracing); without one every span is the API's no-op. */
let tracing = false;
/** Whether spans are recorded (a tracer provider is registered), for what wraps work only to trace it. */
export function tracingOn(): boolean {
  return tracing;
}

/** The no-op span `inSpan` hands its function when tracing is off. */
const NOT_RECORDED = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Runs `fn` in a span named `name` (a use case, a command), ending it with the outcome. With tracing off,
 * `fn` runs as it is, with a span that records nothing (as the API's no-op tracer would give it, without
 * its two layers of promises around every command).
 */
export function inSpan<T>(name: string, attributes: Record<string, string>, fn: (span: Span) => Promise<T>): Promise<T> {
  if (!tracing) {
    try {
      return fn(NOT_RECORDED);
    } catch (err) {
      // a function that throws before its promise: a rejection, as inside a span (rethrown as it was thrown)
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(err);
    }
  }
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** A request's server span, continuing a `traceparent` the caller sent; null when tracing is off (the span would not record). */
export function startRequestSpan(method: string, path: string, headers: Record<string, unknown>): StartedSpan | null {
  const parent = propagation.extract(context.active(), headers);
  const span = tracer().startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': path } }, parent);
  return span.isRecording() ? { span, context: trace.setSpan(parent, span) } : null;
}

/** Names the span by its route template once known, and ends it with the answer's status. */
export function endRequestSpan(span: Span, method: string, route: string, status: number, requestId: string): void {
  span.updateName(`${method} ${route}`);
  span.setAttributes({ 'http.route': route, 'http.response.status_code': status, 'market.request_id': requestId });
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

export type StartedSpan = { span: Span; context: Context };

/** One server span per request (see startRequestSpan), the rest of the request run inside it. */
export function httpTracing(routeOf: (req: Request) => string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    // a request the command lane left here keeps the span its key lookup ran in (lane-handover.ts)
    const started = laneFindings(req)?.span ?? startRequestSpan(req.method, req.path, req.headers);
    if (!started) return next();
    res.locals.traceId = started.span.spanContext().traceId;
    res.on('finish', () => endRequestSpan(started.span, req.method, routeOf(req), res.statusCode, req.requestId));
    context.with(started.context, next);
  };
}

interface KnexQuery {
  __knexQueryUid: string;
  sql: string;
}

/** A client span per SQL statement, from knex's query events (the ORM runs every statement through knex). */
export function sqlTracing(orm: MikroORM): void {
  const knex = orm.em.getConnection().getKnex();
  const open = new Map<string, Span>();
  knex.on('query', (q: KnexQuery) => {
    if (!trace.getActiveSpan()?.isRecording()) return;
    // The ORM inlines bound values into the text it hands knex (emails, hashes), so a span records the
    // statement's verb and first table, never its text.
    const verb = /^\s*(\w+)/.exec(q.sql)?.[1]?.toLowerCase() ?? 'sql';
    const table = /\b(?:from|into|update|table)\s+"?(\w+)/i.exec(q.sql)?.[1] ?? '';
    const attributes = { 'db.system.name': 'postgresql', 'db.operation.name': verb, 'db.collection.name': table };
    open.set(q.__knexQueryUid, tracer().startSpan(`sql ${verb}${table ? ` ${table}` : ''}`, { kind: SpanKind.CLIENT, attributes }));
  });
  const end = (q: KnexQuery, failed: boolean) => {
    const span = open.get(q.__knexQueryUid);
    if (!span) return;
    open.delete(q.__knexQueryUid);
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  knex.on('query-response', (_r: unknown, q: KnexQuery) => end(q, false));
  knex.on('query-error', (_e: unknown, q: KnexQuery) => end(q, true));
}
