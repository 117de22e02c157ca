// Expected refusals as values, and the one table of their HTTP statuses (SPEC §7).

export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_json: 400,
  unauthenticated: 401,
  invalid_credentials: 401,
  forbidden: 403,
  csrf_required: 403,
  session_required: 403,
  escalation_denied: 403,
  not_found: 404,
  actor_not_found: 404,
  user_not_found: 404,
  version_conflict: 409,
  invalid_transition: 409,
  email_taken: 409,
  last_admin: 409,
  system_role: 409,
  role_cycle: 409,
  role_in_use: 409,
  idempotency_in_progress: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  not_an_agent: 422,
  actor_not_agent_type: 422,
  not_applicable: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_TITLE: Record<ErrorCode, string> = {
  validation_failed: 'Validation failed',
  invalid_json: 'Invalid JSON',
  unauthenticated: 'Authentication required',
  invalid_credentials: 'Invalid credentials',
  forbidden: 'Forbidden',
  csrf_required: 'CSRF header required',
  session_required: 'Password session required',
  escalation_denied: 'Escalation denied',
  not_found: 'Not found',
  actor_not_found: 'Actor not found',
  user_not_found: 'User not found',
  version_conflict: 'Version conflict',
  invalid_transition: 'Invalid transition',
  email_taken: 'Email taken',
  last_admin: 'Last admin',
  system_role: 'System role',
  role_cycle: 'Role cycle',
  role_in_use: 'Role in use',
  idempotency_in_progress: 'Request in progress',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  not_an_agent: 'Not an agent',
  actor_not_agent_type: 'Actor is not of type agent',
  not_applicable: 'Not applicable',
  idempotency_key_reused: 'Idempotency key reused',
  rate_limited: 'Too many requests',
  internal: 'Internal error',
};

export interface FieldError {
  path: string;
  message: string;
  /** stable and machine-readable (SPEC §7): `required`, `too_long`, … so a client can say it in its own language */
  code?: string;
  /** the figures of `code`, e.g. `{max: 200}` */
  params?: Record<string, unknown>;
}

/** An expected refusal. `extensions` are extra members of the problem document (e.g. `currentVersion`). */
export interface Refusal {
  ok: false;
  code: ErrorCode;
  detail: string;
  extensions?: Record<string, unknown>;
}

export type Result<T> = { ok: true; value: T } | Refusal;

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function refuse(code: ErrorCode, detail: string, extensions?: Record<string, unknown>): Refusal {
  return { ok: false, code, detail, ...(extensions ? { extensions } : {}) };
}

export function validationFailed(errors: FieldError[], detail = 'The input is not valid.'): Refusal {
  return refuse('validation_failed', detail, { errors });
}

/** Thrown (not returned) by the event store: a concurrent writer got there first. */
export class VersionConflictError extends Error {
  constructor(
    readonly streamId: string,
    readonly currentVersion: number,
    readonly expectedVersion: number,
  ) {
    super(`stream ${streamId}: expected version ${expectedVersion}, head is ${currentVersion}`);
  }
}
