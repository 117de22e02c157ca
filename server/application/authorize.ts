// The permission check every use case starts with.
import { hasPermission } from '../domain/permissions.js';
import { refuse, type Refusal } from '../domain/errors.js';
import { OPERATION_PERMISSIONS, type Operation } from './permission-table.js';
import type { Caller, Ctx } from './context.js';

export function mayPerform(caller: Caller, op: Operation): boolean {
  const needed = OPERATION_PERMISSIONS[op];
  return needed === null || hasPermission(caller.grants, needed);
}

/** null when allowed; otherwise the `forbidden` refusal naming the missing permission. */
export function authorize(ctx: Ctx, op: Operation): Refusal | null {
  if (mayPerform(ctx.caller, op)) return null;
  const needed = OPERATION_PERMISSIONS[op]!;
  return refuse('forbidden', `This operation needs the permission ${needed}.`, { missingPermission: needed });
}
