// The audit trail (SPEC §11): `recordAudit` is called by the use cases inside the transaction of the change
// it records (a refused or failed change rolls its entry back with it), so no face can skip it; `listAudit`
// is the newest-first filtered list every face serves. An entry never holds a password, hash or key.
import { z } from 'zod';
import { ok, type Result } from '../../domain/errors.js';
import {
  countAuditEntries,
  insertAuditEntry,
  listAuditEntries,
  type AuditBy,
  type AuditChanges,
  type AuditEntry,
  type AuditTarget,
} from '../../persistence/audit.js';
import { reader, type Tx } from '../../persistence/transaction.js';
import { authorize } from '../authorize.js';
import type { Caller, Ctx, Deps } from '../context.js';
import { cursorSchema, decodeCursor, instantKey, pageLimit, toPage, uuidKey, type Page } from '../paging.js';
import { uuidSchema } from '../schemas.js';
import { parseInput } from '../validate.js';
import { boundedTotal, TOTAL_BOUND, type ListTotal } from '../list-total.js';

export const AUDIT_ACTIONS = [
  'user.created',
  'user.updated',
  'user.deactivated',
  'user.reactivated',
  'user.roles_set',
  'user.password_reset',
  'user.password_changed',
  'user.mfa_enrolled',
  'user.mfa_removed',
  'user.mfa_reset',
  'role.created',
  'role.updated',
  'role.deleted',
  'key.provisioned',
  'key.created',
  'key.rotated',
  'key.revoked',
  'auth.login',
  'auth.login_failed',
  'auth.login_throttled',
  'auth.password_change_failed',
  'auth.mfa_failed',
  'auth.recovery_code_used',
  'auth.logout',
  'actor.created',
  'actor.updated',
  'actor.deleted',
  'projections.rebuilt',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.disabled',
  'oauth.client_registered',
  'oauth.authorized',
  'oauth.denied',
  'oauth.revoked',
  'oauth.refresh_reuse_detected',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_TARGET_TYPES = ['user', 'role', 'key', 'actor', 'projection', 'webhook', 'oauth_client', 'connected_app'] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

export interface AuditChange {
  action: AuditAction;
  target: AuditTarget & { type: AuditTargetType };
  changes?: AuditChanges;
  /** record nothing when `changes` is empty (an edit that changed nothing is no action) */
  ifChanged?: boolean;
}

/** Who acted: a use case's Ctx, the user a login just signed in, or nobody (`caller: null`, a failed login). */
export type AuditCtx = Pick<Ctx, 'via' | 'requestId' | 'clientAddress'> & {
  caller: Pick<Caller, 'kind' | 'userId' | 'userName' | 'apiKey'> | null;
};

function byOf(ctx: AuditCtx): AuditBy {
  const c = ctx.caller;
  if (!c) return { kind: 'anonymous', userId: null, userName: null, apiKeyId: null, apiKeyName: null, via: ctx.via };
  return { kind: c.kind, userId: c.userId, userName: c.userName, apiKeyId: c.apiKey?.id ?? null, apiKeyName: c.apiKey?.name ?? null, via: ctx.via };
}

/** Appends one entry in `tx`, the transaction of the change it records (so it commits or rolls back with it). */
export async function recordAudit(deps: Pick<Deps, 'clock' | 'newId'>, tx: Tx, ctx: AuditCtx, change: AuditChange): Promise<void> {
  const changes = change.changes ?? {};
  if (change.ifChanged && Object.keys(changes).length === 0) return;
  await insertAuditEntry(tx, {
    id: deps.newId(),
    at: deps.clock(),
    action: change.action,
    by: byOf(ctx),
    target: change.target,
    changes,
    requestId: ctx.requestId,
    clientAddress: ctx.clientAddress ?? null,
  });
}

// Targets: a user is labelled by its email, a role by its code, a key and an actor by their names.
export const userTarget = (id: string | null, email: string) => ({ type: 'user' as const, id, label: email });
export const roleTarget = (id: string, code: string) => ({ type: 'role' as const, id, label: code });
export const keyTarget = (id: string, name: string) => ({ type: 'key' as const, id, label: name });
export const actorTarget = (id: string, name: string) => ({ type: 'actor' as const, id, label: name });

/** `{field: {from: null, to}}` for every field of something created (or `{from, to: null}` when `gone`); null fields are no change. */
export function fieldsOf(values: Record<string, unknown>, gone = false): AuditChanges {
  const out: AuditChanges = {};
  for (const [field, value] of Object.entries(values)) {
    if (value !== null && value !== undefined) out[field] = gone ? { from: value, to: null } : { from: null, to: value };
  }
  return out;
}

const same = (a: unknown, b: unknown) =>
  Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((x) => b.includes(x)) : JSON.stringify(a) === JSON.stringify(b);

/** `{field: {from, to}}` for each field given in `after` (undefined = not given) that differs from `before`; arrays compare as sets. */
export function diffFields<T extends object>(before: T, after: { [K in keyof T]?: unknown }): AuditChanges {
  const out: AuditChanges = {};
  for (const [field, value] of Object.entries(after)) {
    if (value === undefined) continue;
    const from = (before as Record<string, unknown>)[field] ?? null;
    if (!same(from, value ?? null)) out[field] = { from, to: value ?? null };
  }
  return out;
}

// ---- the list ------------------------------------------------------------------------------------------

const blankToUndefined = (v: unknown) => (v === null || v === '' ? undefined : v);
const instant = z.preprocess(
  (v) => (v instanceof Date ? v.toISOString() : blankToUndefined(v)),
  z.iso
    .datetime({ offset: true })
    .transform((s) => new Date(s))
    .optional(),
);

const auditFilters = {
  action: z.preprocess(blankToUndefined, z.enum(AUDIT_ACTIONS).optional()).describe('Only entries of this action.'),
  targetType: z.preprocess(blankToUndefined, z.enum(AUDIT_TARGET_TYPES).optional()).describe('Only entries about this kind of target.'),
  targetId: z.preprocess(blankToUndefined, uuidSchema.optional()).describe('Only entries about this target (a UUID).'),
  byUserId: z.preprocess(blankToUndefined, uuidSchema.optional()).describe('Only what this user did (a UUID).'),
  aboutUserId: z
    .preprocess(blankToUndefined, uuidSchema.optional())
    .describe("Only entries about this user (a UUID): the user as the target, or one of the user's API keys (provisioned, created, rotated, revoked)."),
  from: instant.describe('Only entries at or after this instant (ISO 8601 with offset).'),
  to: instant.describe('Only entries before this instant (ISO 8601 with offset); after `from`.'),
};
const fromBeforeTo = (v: { from?: Date; to?: Date }, c: z.RefinementCtx) => {
  if (v.from && v.to && v.from.getTime() >= v.to.getTime()) c.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
};

export const listAuditQuery = z.object({ ...auditFilters, limit: pageLimit, cursor: cursorSchema }).superRefine(fromBeforeTo);
/** The list's filters, for its total. */
export const countAuditQuery = z.object(auditFilters).superRefine(fromBeforeTo);

/** An entry as every face shows it. */
export interface AuditEntryView extends Omit<AuditEntry, 'at'> {
  at: string;
}

export const auditEntryOutput = z
  .object({
    id: z.string().describe('The entry id (a UUID).'),
    at: z.string().describe('When (ISO 8601).'),
    action: z.string().describe('What happened, e.g. `user.created`, `key.revoked`, `auth.login_failed`.'),
    by: z
      .object({
        kind: z.enum(['human', 'agent', 'system', 'anonymous']).describe('A human, an agent, the system (CLI), or nobody signed in (a failed login).'),
        userId: z.string().nullable().describe('The acting user; null for the system or nobody.'),
        userName: z.string().nullable().describe("The acting user's name at the time."),
        apiKeyId: z.string().nullable().describe('The id of the API key used; null when none was.'),
        apiKeyName: z.string().nullable().describe('The name of the API key used.'),
        via: z.enum(['graphql', 'rest', 'mcp', 'cli']).describe('The face it came through.'),
      })
      .describe('Who acted, and how.'),
    target: z
      .object({
        type: z.string().describe('user, role, key, actor, projection or webhook.'),
        id: z.string().nullable().describe("The target's id; null when there is none (a failed login for an unknown email)."),
        label: z.string().nullable().describe('A readable name for it at the time (an email, a role code, a key name, …).'),
      })
      .describe('What it was done to.'),
    changes: z
      .record(
        z.string(),
        z.object({
          from: z.unknown().describe('The value before (null when created).'),
          to: z.unknown().describe('The value after (null when removed).'),
        }),
      )
      .describe('The changed fields, by name; never a secret.'),
    requestId: z.string().nullable().describe('The request that did it (its X-Request-Id); null when there was none.'),
    clientAddress: z.string().nullable().describe('The client address it came from; null when there was none.'),
  })
  .describe('One identity or administration action.') satisfies z.ZodType<AuditEntryView>;

/** The closed sets an entry's `action` and `target.type` come from, served so a client builds its filters from them. */
export interface AuditVocabulary {
  actions: readonly AuditAction[];
  targetTypes: readonly AuditTargetType[];
}

export function auditVocabulary(ctx: Ctx): Result<AuditVocabulary> {
  const denied = authorize(ctx, 'audit.vocabulary');
  if (denied) return denied;
  return ok({ actions: AUDIT_ACTIONS, targetTypes: AUDIT_TARGET_TYPES });
}

const auditCursorKey = z.tuple([instantKey, uuidKey]);

/** How many entries the list's filters match, exact up to TOTAL_BOUND (a count with a LIMIT). */
export async function countAudit(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<ListTotal>> {
  const denied = authorize(ctx, 'audit.count');
  if (denied) return denied;
  const parsed = parseInput(countAuditQuery, input);
  if (!parsed.ok) return parsed;
  return ok(boundedTotal(await countAuditEntries(reader(deps.orm), parsed.value, TOTAL_BOUND)));
}

export async function listAudit(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<Page<AuditEntryView>>> {
  const denied = authorize(ctx, 'audit.list');
  if (denied) return denied;
  const parsed = parseInput(listAuditQuery, input);
  if (!parsed.ok) return parsed;
  const { limit, cursor, ...filter } = parsed.value;
  const before = cursor === undefined ? ok(undefined) : decodeCursor(deps, 'audit', cursor, auditCursorKey);
  if (!before.ok) return before;
  const rows = await listAuditEntries(reader(deps.orm), filter, before.value, limit + 1);
  return ok(
    toPage(
      deps,
      'audit',
      rows,
      limit,
      (r) => r.key,
      (r) => ({ ...r.entry, at: r.entry.at.toISOString() }),
    ),
  );
}
