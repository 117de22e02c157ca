// Tells a database that is briefly unable to serve (stopped, restarting, out of connections, disk or
// time, read-only, a lock held too long) from a bug: the first is 503 `unavailable` with Retry-After,
// the second stays 500 (SPEC §7).

/** SQLSTATE classes and codes that say "not now", not "never": retrying later can succeed. */
const TRANSIENT_CLASSES = ['08', '53', '57P'];
const TRANSIENT_CODES = new Set([
  '55P03', // lock_not_available: lock_timeout
  '57014', // query_canceled: statement_timeout
  '25006', // read_only_sql_transaction: a standby, or default_transaction_read_only
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '25P03', // idle_in_transaction_session_timeout
  '58030', // io_error
]);
/** Node's socket errors when the server is not there or goes away. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** What node-postgres and knex say without a code: a connection cut mid-query, a full pool. */
const MESSAGES = [
  /Connection terminated/i,
  /Client has encountered a connection error and is not queryable/i,
  /Client was closed and is not queryable/i,
  /timeout exceeded when trying to connect/i,
  /Timeout acquiring a connection/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
];

/** Whether `err` (or an error it wraps) is the database being unavailable for now. */
export function isTransientDatabaseError(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; originalError?: unknown; errors?: unknown };
  const code = e.code;
  if (typeof code === 'string') {
    if (TRANSIENT_CODES.has(code) || NETWORK_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && TRANSIENT_CLASSES.some((c) => code.startsWith(c))) return true;
  }
  // the pool's timeout, and the same wait in the hot path's queue for a kept connection (statements.ts)
  if (e.name === 'KnexTimeoutError' || e.name === 'ConnectionWaitTimeout' || e.name === 'ConnectionException' || e.name === 'LockWaitTimeoutException')
    return true;
  if (typeof e.message === 'string' && MESSAGES.some((m) => m.test(e.message as string))) return true;
  // an AggregateError (a connection tried on several addresses), a wrapped cause, GraphQL's original error
  if (Array.isArray(e.errors) && e.errors.some((x) => isTransientDatabaseError(x, depth + 1))) return true;
  return isTransientDatabaseError(e.cause, depth + 1) || isTransientDatabaseError(e.originalError, depth + 1);
}

/** How long a client should wait before retrying a request the database could not serve. */
export const RETRY_AFTER_SECONDS = 2;
