// 503 `unavailable` (SPEC §7): the database cannot serve for now (stopped, out of connections or disk,
// read-only, a lock or statement over its limit, no pool connection within DB_ACQUIRE_TIMEOUT_MS).
import { refuse, type Refusal } from '../domain/errors.js';
import { RETRY_AFTER_SECONDS } from '../persistence/transient.js';

export function unavailable(): Refusal {
  return refuse(
    'unavailable',
    'The database cannot serve this request right now; retry in a moment (a write retried with the same idempotency key runs at most once).',
    {
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    },
  );
}
