// The command lane (issue 37, the hot path): a tension command over REST with a bearer key (`POST
// /api/v1/tensions`, `POST /api/v1/tensions/:id/<verb>`), and a GraphQL operation with one (`POST /graphql`,
// through yoga's pipeline without its HTTP layer: server/graphql/lane.ts), answered without Express's
// layers, which cost a rescore as much CPU again as the command itself. What the request gets is what
// Express's path gives: the same request id, access line, metric, span, host check, security headers, rate
// limit and its headers, idempotency, refusals and answer, from the same functions (`restReply`,
// `problemHeaders`, the limiter, `securityHeaderList`, `startRequestSpan`, the app's own ETag and trust-proxy
// functions; for GraphQL, yoga's).
//
// The lane takes only the plain case and leaves everything else to Express, whole and unread: another
// method or path spelling, a query string, an `Origin` (CORS), a body that is not plain JSON with a
// Content-Length within the limit, a Host the service does not answer to, a draining instance, and, after
// the key lookup, a key that does not authenticate or a caller at its rate limit (Express then answers
// 401 or 429 itself, counting the request once). A GraphQL body is read before the lane decides: what it
// does not admit goes to Express with that body (lane-handover.ts), before the rate limit counts it. The
// tests test/int/foundation/command-lane.int.test.ts and graphql-lane.int.test.ts compare the lanes' answers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context } from '@opentelemetry/api';
import proxyaddr from 'proxy-addr';
import type { Caller, Ctx, Deps } from '../application/context.js';
import type { Result } from '../domain/errors.js';
import { runCommand, TENSION_COMMANDS, type TensionCommandEntry } from '../application/tensions/index.js';
import { bearerToken } from '../auth/authenticate.js';
import { refusalReply, restReply, type RestReply } from '../rest/handle.js';
import { internalProblemBody } from '../rest/problem.js';
import { failureRefusal } from '../rest/router.js';
import { endRequestSpan, startRequestSpan } from '../tracing.js';
import { BODY_LIMIT_BYTES, notJson } from './body.js';
import { limitBucket, type RequestLimiter } from './rate-limit.js';
import { leaveToExpress } from './lane-handover.js';
import { correlationOf, requestIdOf, requestLog, type AccessFields, type VerifyBearer } from './request-context.js';
import { securityHeaderList } from './security-headers.js';
import type { AdmittedCall, GraphqlLane } from '../graphql/lane.js';
import { graphqlFailure } from '../graphql/yoga.js';

const PREFIX = '/api/v1';
const JSON_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);
/** No command's path is longer; a longer URL goes to Express (and its 414 when it is very long). */
const MAX_URL = 256;

export interface CommandLaneParts {
  verifyBearer: VerifyBearer;
  limiter: RequestLimiter;
  logAccess: (fields: AccessFields) => void;
  /** true once shutdown has begun: Express's path then asks clients to reconnect elsewhere */
  draining: () => boolean;
  /** the app's compiled `trust proxy` (TRUST_PROXY) */
  trust: (address: string, hop: number) => boolean;
  /** the app's `etag fn` (Express's weak ETag of a body) */
  etag: (body: Buffer, encoding?: string) => string | undefined;
  /** Express, for a request the lane leaves */
  fallback: (req: IncomingMessage, res: ServerResponse) => void;
  /** GraphQL's half (server/graphql/lane.ts); without it, `/graphql` goes through Express */
  graphql?: GraphqlLane;
}

type Target = { entry: TensionCommandEntry; id: string | null; route: string } | { entry: null; route: '/graphql' };

/** The body-input POST commands of the registry, by the verb after `/tensions/:id/` (and sense, at `/tensions`). */
function routes(): { collection: TensionCommandEntry | undefined; byVerb: Map<string, TensionCommandEntry> } {
  let collection: TensionCommandEntry | undefined;
  const byVerb = new Map<string, TensionCommandEntry>();
  for (const entry of TENSION_COMMANDS) {
    if (entry.rest.method !== 'post' || entry.rest.input === 'query') continue;
    if (entry.rest.path === '/tensions') collection = entry;
    const verb = /^\/tensions\/:id\/([a-z]+)$/.exec(entry.rest.path)?.[1];
    if (verb) byVerb.set(verb, entry);
  }
  return { collection, byVerb };
}

/** The first value of a forwarded header a trusted proxy set, as Express reads it. */
function firstValue(value: string): string {
  const comma = value.indexOf(',');
  return (comma === -1 ? value : value.slice(0, comma)).trim();
}

export function commandLane(deps: Deps, parts: CommandLaneParts): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { collection, byVerb } = routes();
  const hosts = new Set(deps.config.allowedHosts);
  const varyOrigin = deps.config.corsOrigins.length > 0;
  const { trust } = parts;

  function target(url: string): Target | null {
    if (url === '/graphql') return parts.graphql ? { entry: null, route: url } : null;
    if (url.length > MAX_URL || !url.startsWith(PREFIX)) return null;
    const path = url.slice(PREFIX.length);
    if (path === '/tensions') return collection ? { entry: collection, id: null, route: `${PREFIX}${collection.rest.path}` } : null;
    if (!path.startsWith('/tensions/')) return null;
    const slash = path.indexOf('/', 10);
    if (slash <= 10) return null;
    const entry = byVerb.get(path.slice(slash + 1));
    const id = path.slice(10, slash);
    // a percent-encoded id is decoded (or refused) by Express's router; a query string is Express's to read
    if (!entry || id.includes('%') || id.includes('?')) return null;
    return { entry, id, route: `${PREFIX}${entry.rest.path}` };
  }

  /** Express's `req.hostname`, lower-cased without a trailing dot, as the host check compares it. */
  function hostname(req: IncomingMessage): string | undefined {
    const forwarded = firstHeader(req.headers['x-forwarded-host']);
    let host = forwarded && trust(req.socket.remoteAddress ?? '', 0) ? firstValue(forwarded) : req.headers.host;
    if (!host) return undefined;
    const offset = host[0] === '[' ? host.indexOf(']') + 1 : 0;
    const colon = host.indexOf(':', offset);
    if (colon !== -1) host = host.slice(0, colon);
    return host.toLowerCase().replace(/\.$/, '');
  }

  /** Express's `req.secure`: TLS, or a trusted proxy's X-Forwarded-Proto. */
  function secure(req: IncomingMessage): boolean {
    const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
    if (!trust(req.socket.remoteAddress ?? '', 0)) return encrypted;
    const proto = firstHeader(req.headers['x-forwarded-proto']);
    return (proto ? firstValue(proto) : encrypted ? 'https' : 'http') === 'https';
  }

  return function take(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'POST' || parts.draining()) return false;
    const found = target(req.url ?? '');
    if (!found) return false;
    const h = req.headers;
    if (h.origin !== undefined || h['transfer-encoding'] !== undefined || h['content-encoding'] !== undefined) return false;
    const length = h['content-length'];
    if (length === undefined || !/^\d{1,6}$/.test(length) || Number(length) > BODY_LIMIT_BYTES) return false;
    if ((length !== '0' || found.entry === null) && !JSON_TYPES.has(h['content-type']?.toLowerCase() ?? '')) return false;
    if (found.entry === null && length === '0') return false;
    const bearer = bearerToken(h.authorization);
    if (typeof bearer !== 'string') return false;
    const name = hostname(req);
    if (name === undefined || !hosts.has(name)) return false;
    serve(req, res, found, bearer, Number(length)).catch((err: unknown) => {
      // a failure `serve` could not answer (a refusal or a failed command is answered there): a bug; end the exchange
      deps.logger.error({ err }, 'command lane: request failed');
      res.destroy();
    });
    return true;
  };

  async function serve(req: IncomingMessage, res: ServerResponse, found: Target, bearer: string, length: number): Promise<void> {
    const started = process.hrtime.bigint();
    const url = req.url!;
    // The span covers the key's lookup, as Express's does; a request left to Express takes it along
    // (Express's request span is this one, ended there).
    const traced = startRequestSpan('POST', url, req.headers);
    const within = <T>(fn: () => Promise<T>) => (traced ? context.with(traced.context, fn) : fn());
    const leave = (verified?: Result<Caller>, body?: Buffer) => {
      leaveToExpress(req, { verified, span: traced ?? undefined, body });
      parts.fallback(req, res);
    };
    let caller: Caller;
    try {
      const verified = await within(() => parts.verifyBearer(bearer));
      if (!verified.ok) return leave(verified);
      caller = verified.value;
    } catch {
      return leave(); // Express meets the same failure and answers it (503 or 500)
    }
    const client = proxyaddr(req, trust) ?? req.socket.remoteAddress ?? 'unknown';
    const bucket = parts.limiter.limit === 0 ? null : limitBucket(caller, () => client);
    if (bucket !== null && parts.limiter.wouldRefuse(bucket)) return leave({ ok: true, value: caller });
    // GraphQL: whether the lane runs it is in the body, read here; what it does not admit goes with its body.
    let graphql: AdmittedCall | null = null;
    if (found.entry === null) {
      const raw = await readBody(req, length);
      if (raw === null) return; // the client went away before its body arrived: nobody to answer
      graphql = parts.graphql!.admit(raw, firstHeader(req.headers.accept));
      if (graphql === null) return leave({ ok: true, value: caller }, raw);
      // again after the read: no await between this check and the take below, so the lane never answers past the limit
      if (bucket !== null && parts.limiter.wouldRefuse(bucket)) return leave({ ok: true, value: caller }, raw);
    }
    // From here the lane answers.
    const rateHeaders = bucket === null ? [] : parts.limiter.take(bucket).headers;
    const requestId = requestIdOf(firstHeader(req.headers['x-request-id']));
    const base: string[] = ['X-Request-Id', requestId];
    if (varyOrigin) base.push('Vary', 'Origin');
    for (const [k, v] of securityHeaderList(url, secure(req))) base.push(k, v);
    for (const [k, v] of rateHeaders) base.push(k, v);

    const finish = (status: number) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      deps.metrics.httpRequest({ method: 'POST', route: found.route, status: String(status) }, seconds);
      deps.metrics.commandLane();
      if (traced) endRequestSpan(traced.span, 'POST', found.route, status, requestId);
      parts.logAccess({
        requestId,
        method: 'POST',
        path: url,
        status,
        client,
        userId: caller.userId,
        apiKeyId: caller.apiKey?.id ?? null,
        ms: seconds * 1e3,
        ...(traced ? { traceId: traced.span.spanContext().traceId } : {}),
      });
    };
    const write = (status: number, headers: string[], body?: Buffer) => {
      if (body === undefined) {
        res.writeHead(status, headers);
        return void res.end(() => finish(status));
      }
      headers.push('Content-Length', String(body.length));
      res.writeHead(status, headers);
      res.end(body, () => finish(status));
    };
    const send = (reply: RestReply) => {
      const headers = base.slice();
      for (const [k, v] of reply.headers) headers.push(k, v);
      if (reply.status === 204) return write(204, headers);
      const body = Buffer.from(JSON.stringify(reply.body));
      headers.push('Content-Type', reply.problem ? 'application/problem+json; charset=utf-8' : 'application/json; charset=utf-8');
      const tag = parts.etag(body);
      if (tag) headers.push('ETag', tag);
      write(reply.status, headers, body);
    };
    const correlation = correlationOf(firstHeader(req.headers['x-correlation-id']));

    if (found.entry === null) {
      const call = graphql!;
      // yoga's answer as yoga would write it (its Content-Type, no ETag); a failure outside the resolvers
      // as yoga.ts answers it; the request's logger is where masked errors are logged (yoga.ts maskError)
      const log = deps.logger.child({ requestId });
      const run = async () => {
        try {
          const reply = await parts.graphql!.run(call, { caller, requestId, clientAddress: client, ...correlation });
          const headers = base.slice();
          for (const [k, v] of reply.headers) headers.push(k, v);
          write(reply.status, headers, Buffer.from(reply.body));
        } catch (err) {
          const failed = graphqlFailure(err, requestId, log);
          const headers = base.slice();
          for (const [k, v] of failed.headers) headers.push(k, v);
          headers.push('Content-Type', 'application/json; charset=utf-8');
          write(failed.status, headers, Buffer.from(JSON.stringify(failed.body)));
        }
      };
      return within(() => requestLog.run(log, run));
    }
    const { entry, id } = found;

    const answer = async () => {
      const raw = length === 0 ? undefined : await readBody(req, length);
      if (raw === null) return; // the client went away before its body arrived: nobody to answer
      let body: unknown;
      if (raw !== undefined) {
        try {
          // body-parser's reading: UTF-8 without its byte-order mark, and an empty body is `{}`
          const text = raw.toString('utf8').replace(/^\uFEFF/, '');
          body = text.length === 0 ? {} : JSON.parse(text);
        } catch {
          return send(refusalReply(notJson(), requestId));
        }
      }
      const ctx: Ctx = { caller, via: 'rest', requestId, clientAddress: client, ...correlation };
      const face = { rawKey: req.headers['idempotency-key'], keyField: 'Idempotency-Key', method: 'POST', path: url, body: body ?? null };
      try {
        send(await restReply(deps, ctx, face, () => runCommand(deps, ctx, entry, id, body ?? {}), entry.rest.status ?? 200));
      } catch (err) {
        const failure = failureRefusal(err, deps.logger.child({ requestId }));
        send(failure ? refusalReply(failure, requestId) : { status: 500, body: internalProblemBody(requestId), problem: true, headers: [] });
      }
    };
    await within(answer);
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The body, `length` bytes as announced (Node's parser holds the request to it); null when the client went away first. */
function readBody(req: IncomingMessage, length: number): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    });
    req.once('end', () => resolve(received === length ? (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received)) : null));
    req.once('error', () => resolve(null));
    req.once('aborted', () => resolve(null));
  });
}
