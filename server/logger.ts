// Structured logs; secrets are redacted by path wherever they could appear, and a failed query's SQL and
// bound values never reach a log line (an error serializer withholds them).
import { pino, destination, type Logger, type DestinationStream } from 'pino';
import { activeTraceId } from './tracing.js';

export type { Logger };

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      serializers: { err: safeError, error: safeError },
      // Every line logged inside a traced request carries its trace id (SPEC §9).
      mixin: () => {
        const traceId = activeTraceId();
        return traceId ? { traceId } : {};
      },
      redact: {
        paths: [
          'password',
          '*.password',
          'newPassword',
          '*.newPassword',
          'currentPassword',
          '*.currentPassword',
          'key',
          '*.key',
          'token',
          '*.token',
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/**
 * The service's stdout, written in batches (issue 37): a line waits in memory until 4 KiB are buffered or
 * `flushMs` has passed, so a busy service makes one write a batch instead of one a request (the access line's
 * write was a tenth of a REST rescore's CPU). The buffer is written synchronously when the process exits,
 * on an uncaught exception too (pino's exit hook); what a SIGKILL or a crash of the runtime itself
 * cuts short is at most the last `flushMs` of lines. `flushMs` 0: each line written as it is logged.
 */
export function bufferedStdout(flushMs: number): DestinationStream | undefined {
  if (flushMs === 0) return undefined;
  const out = destination({ fd: 1, sync: false, minLength: 4096 });
  // (an empty buffer's flush is an empty write: ten a second at most)
  setInterval(() => {
    if (!(out as { destroyed?: boolean }).destroyed) out.flush();
  }, flushMs).unref();
  return out;
}

/** For the stdio MCP server: stdout carries the protocol, so logs go to stderr. */
export function pinoStderr(): DestinationStream {
  return destination(2);
}

/**
 * Members of driver and query-builder errors that carry a statement's text or its values: knex's `sql` and
 * `bindings`, pg's `detail` (`Key (key_hash)=(…) already exists`), `where` and `internalQuery`, and the
 * generic names other libraries use. A failed key lookup's bound value is the key's SHA-256 hash.
 */
const WITHHELD = new Set(['sql', 'query', 'bindings', 'params', 'parameters', 'values', 'detail', 'where', 'internalQuery', 'raw']);

/** The statements PostgreSQL runs: knex starts a failed query's message with the query, its values inlined. */
const SQL_START =
  /^\s*\(?\s*(select|insert|update|delete|with|set|create|alter|drop|begin|commit|rollback|lock|truncate|copy|do|call|explain|values|grant|revoke|savepoint|release|prepare|execute|listen|notify|vacuum|analyze|reset|show|table)\b/i;

/** PostgreSQL quotes identifiers after these words; any other quoted text in its message is a value. */
const IDENTIFIER_BEFORE =
  /\b(relation|column|table|constraint|index|function|schema|type|role|database|sequence|trigger|view|operator|extension|domain|cursor|statement|savepoint|portal|channel|tablespace|collation|policy)\s+$/i;

function maskValues(message: string): string {
  return message.replace(/"(?:[^"]|"")*"/g, (quoted, offset: number) => (IDENTIFIER_BEFORE.test(message.slice(0, offset)) ? quoted : '"[withheld]"'));
}

function isDatabaseError(e: Record<string, unknown>): boolean {
  return (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) || 'severity' in e || 'sqlState' in e || /Exception$/.test(String(e.name));
}

const isErrorLike = (v: unknown): v is Error & Record<string, unknown> =>
  v instanceof Error || (typeof v === 'object' && v !== null && typeof (v as Error).message === 'string' && typeof (v as Error).stack === 'string');

/** A message without the statement knex puts before the driver's words (`<sql with values> - <message>`). */
function withoutSql(message: string, database: boolean): string {
  let text = message;
  if (SQL_START.test(text)) {
    const cut = text.lastIndexOf(' - ');
    text = cut >= 0 ? `(statement withheld) - ${text.slice(cut + 3)}` : '(statement withheld)';
  }
  return database ? maskValues(text) : text;
}

/**
 * The log form of an error: type, message, stack frames and own members, minus every statement text and
 * bound value (SPEC §7, docs/security.md). Causes and aggregated errors get the same treatment.
 */
export function safeError(err: unknown, depth = 0): unknown {
  if (!isErrorLike(err)) return err;
  const database = isDatabaseError(err);
  const type = typeof err.constructor === 'function' && err.constructor.name ? err.constructor.name : err.name;
  const message = withoutSql(err.message, database);
  const frames = (err.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  const out: Record<string, unknown> = { type, message, stack: [`${err.name}: ${message}`, ...frames].join('\n') };
  for (const key of Object.keys(err)) {
    if (WITHHELD.has(key) || key in out || key === 'cause' || key === 'errors') continue;
    const value = err[key];
    out[key] = isErrorLike(value)
      ? depth < 5
        ? safeError(value, depth + 1)
        : '[error]'
      : typeof value === 'string' && database
        ? withoutSql(value, true)
        : value;
  }
  if (err.cause !== undefined && depth < 5) out.cause = safeError(err.cause, depth + 1);
  if (Array.isArray(err.errors) && depth < 5) out.aggregateErrors = err.errors.map((e: unknown) => safeError(e, depth + 1));
  return out;
}

/** One error as text for a CLI's stderr: the same withholding as the logs. */
export function errorText(err: unknown): string {
  const safe = safeError(err);
  return isErrorLike(err) ? String((safe as { stack: string }).stack) : String(err);
}
