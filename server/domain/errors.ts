// Expected refusals as values: one type from the decider to the faces (SPEC §7). The faces map a code to
// their own vocabulary (HTTP status and title: server/http/refusal-status.ts; GraphQL: the code upper-cased).

export const REFUSAL_CODES = [
  'validation_failed',
  'invalid_json',
  'unauthenticated',
  'invalid_credentials',
  'forbidden',
  'csrf_required',
  'session_required',
  'mfa_enrolment_required',
  'mfa_required',
  'escalation_denied',
  'not_found',
  'actor_not_found',
  'user_not_found',
  'version_conflict',
  'invalid_transition',
  'email_taken',
  'code_taken',
  'last_admin',
  'system_role',
  'role_cycle',
  'role_in_use',
  'idempotency_in_progress',
  'payload_too_large',
  'unsupported_media_type',
  'not_an_agent',
  'actor_not_agent_type',
  'not_applicable',
  'idempotency_key_reused',
  'rate_limited',
  'too_costly',
  'method_not_allowed',
  'host_not_allowed',
  'uri_too_long',
  'headers_too_large',
  'internal',
  'unavailable',
] as const;

export type ErrorCode = (typeof REFUSAL_CODES)[number];

/**
 * The stable codes of a field error (SPEC §7): zod's vocabulary, plus what a use case finds beyond the
 * schema (`not_found`: ids that name nothing; `not_held`: permissions the user lacks; `immutable`: a field
 * fixed at creation; `incorrect`: a secret that does not match). A closed list, so a client can translate
 * every one and the compiler refuses an error item without a known code.
 */
export const FIELD_ERROR_CODES = [
  'required',
  'too_short',
  'too_long',
  'too_small',
  'too_big',
  'invalid_type',
  'invalid_format',
  'invalid_value',
  'unknown_field',
  'not_found',
  'not_held',
  'immutable',
  'incorrect',
] as const;

export type FieldErrorCode = (typeof FIELD_ERROR_CODES)[number];

export const isFieldErrorCode = (code: unknown): code is FieldErrorCode => (FIELD_ERROR_CODES as readonly unknown[]).includes(code);

/** One item of a `validation_failed` refusal's `errors`: both `code` and `params` are required, on every face. */
export interface FieldError {
  path: string;
  message: string;
  /** stable and machine-readable (SPEC §7): `required`, `too_long`, … so a client can say it in its own language */
  code: FieldErrorCode;
  /** the figures of `code`, e.g. `{max: 200}`; `{}` when it has none */
  params: Record<string, unknown>;
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
