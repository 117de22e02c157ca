// The permission check every use case starts with.
import { hasPermission, narrowGrants } from '../domain/permissions.js';
import { refuse, type Refusal } from '../domain/errors.js';
import { OPERATION_PERMISSIONS, type Operation } from './permission-table.js';
import type { Caller, Ctx } from './context.js';

/**
 * The one answer to "what may this caller do": its user's grants, narrowed by the key's permissions when it
 * came with a scoped key. Every permission check (this file, escalation, the GraphQL scopes, the MCP tool
 * list, `/auth/me`) reads the caller's grants through here.
 */
export function callerGrants(caller: Caller): string[] {
  return narrowGrants(caller.userGrants, caller.keyPermissions);
}

/** What a session that must enrol a second factor first may still do (SPEC §16, REQUIRE_MFA_FOR_ADMINS). */
const BEFORE_ENROLMENT: readonly Operation[] = ['me.get', 'me.getMfa', 'me.startMfaEnrolment', 'me.confirmMfaEnrolment'];

const mustEnrolFirst = (caller: Caller, op: Operation) => caller.mfaEnrolmentRequired === true && !BEFORE_ENROLMENT.includes(op);

export const MFA_ENROLMENT_REQUIRED = (): Refusal =>
  refuse('mfa_enrolment_required', 'Administrators must set up a second factor before anything else: open your account page and enrol an authenticator app.');

export function mayPerform(caller: Caller, op: Operation): boolean {
  if (mustEnrolFirst(caller, op)) return false;
  const needed = OPERATION_PERMISSIONS[op];
  return needed === null || hasPermission(callerGrants(caller), needed);
}

/** null when allowed; otherwise the `forbidden` refusal naming the missing permission. */
export function authorize(ctx: Ctx, op: Operation): Refusal | null {
  if (mustEnrolFirst(ctx.caller, op)) return MFA_ENROLMENT_REQUIRED();
  if (mayPerform(ctx.caller, op)) return null;
  const needed = OPERATION_PERMISSIONS[op]!;
  return refuse('forbidden', `This operation needs the permission ${needed}.`, { missingPermission: needed });
}
