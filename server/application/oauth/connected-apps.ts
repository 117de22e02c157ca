// Connected apps (SPEC §13): the OAuth grants a person gave AI clients, listed and revoked by the person
// (password session) or by an administrator (users:read / users:write, with the escalation rule).
import { z } from 'zod';
import { ok, refuse, type Result } from '../../domain/errors.js';
import { connectedApp, connectedApps, revokeOAuthGrant, type ConnectedAppRow } from '../../persistence/oauth-store.js';
import { lockIdentityChanges } from '../../persistence/role-graph.js';
import { reader, transact } from '../../persistence/transaction.js';
import { userSummary } from '../../persistence/users.js';
import { recordAudit } from '../audit/audit.js';
import { authorize } from '../authorize.js';
import type { Ctx, Deps } from '../context.js';
import { uuidSchema } from '../schemas.js';
import { mayActOnUser } from '../users/act-on-user.js';
import { userNotFound } from '../users/users.js';
import { requirePasswordSession } from '../users/api-keys.js';
import { parseInput } from '../validate.js';

/** A person holds few grants; more than this is listed newest first and cut (the budget of one answer). */
export const CONNECTED_APPS_CAP = 100;

export interface ConnectedApp {
  id: string;
  client: { id: string; name: string; verified: boolean };
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
}

function toView(row: ConnectedAppRow, resource: string): ConnectedApp {
  return {
    id: row.id,
    client: { id: row.client_id, name: row.client_name ?? row.client_id, verified: row.client_verified ?? false },
    scopes: (row.resources?.[resource] ?? '').split(' ').filter(Boolean),
    createdAt: new Date(row.created_at),
    lastUsedAt: row.last_used_at ? new Date(row.last_used_at) : null,
  };
}

export const connectedAppListOutput = z
  .object({
    data: z
      .array(
        z
          .object({
            id: z.string().describe("The grant's id (events written through it name it as `oauthGrantId`)."),
            client: z
              .object({
                id: z.string().describe('The client id: a registered id, or the https URL of its metadata document.'),
                name: z.string().describe('The name the client gave.'),
                verified: z.boolean().describe('true for a client known by a metadata document at its own https address; false for a registered one.'),
              })
              .describe('The AI client the grant was given to.'),
            scopes: z.array(z.string()).describe('The permissions granted (narrowed further by the person’s own, on every request).'),
            createdAt: z.date().describe('When the person allowed it.'),
            lastUsedAt: z.date().nullable().describe('Written at most once a minute.'),
          })
          .describe('One connected app: an OAuth grant for /mcp.'),
      )
      .describe('Newest first, at most 100.'),
  })
  .describe('The AI clients a person connected by OAuth, newest first.') satisfies z.ZodType<{ data: ConnectedApp[] }>;

const grantIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[\w-]+$/, 'not a connected app id');
const userInput = z.strictObject({ userId: uuidSchema });
const revokeInput = z.strictObject({ userId: uuidSchema, id: grantIdSchema });
const revokeMineInput = z.strictObject({ id: grantIdSchema });

const resourceOf = (deps: Deps) => `${deps.config.publicUrl.replace(/\/+$/, '')}/mcp`;

async function listFor(deps: Deps, userId: string): Promise<Result<{ data: ConnectedApp[] }>> {
  const rows = await connectedApps(reader(deps.orm), userId, CONNECTED_APPS_CAP);
  return ok({ data: rows.map((r) => toView(r, resourceOf(deps))) });
}

async function revokeFor(deps: Deps, ctx: Ctx, userId: string, grantId: string, actOnOther: boolean): Promise<Result<null>> {
  return transact(deps.orm, async (tx) => {
    if (actOnOther) {
      await lockIdentityChanges(tx);
      const denied = await mayActOnUser(tx, ctx.caller, userId);
      if (denied) return denied;
    }
    const app = await connectedApp(tx, userId, grantId);
    if (!app) return refuse('not_found', `No connected app ${grantId} of this user.`);
    await revokeOAuthGrant(tx, grantId);
    await recordAudit(deps, tx, ctx, {
      action: 'oauth.revoked',
      target: { type: 'connected_app', id: null, label: app.client_name ?? app.client_id },
      changes: { grantId: { from: grantId, to: null }, userId: { from: userId, to: null } },
    });
    return ok(null);
  });
}

export async function listMyConnectedApps(deps: Deps, ctx: Ctx): Promise<Result<{ data: ConnectedApp[] }>> {
  const denied = authorize(ctx, 'me.listConnectedApps') ?? requirePasswordSession(ctx);
  if (denied) return denied;
  return listFor(deps, ctx.caller.userId!);
}

export async function revokeMyConnectedApp(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<null>> {
  const denied = authorize(ctx, 'me.revokeConnectedApp') ?? requirePasswordSession(ctx);
  if (denied) return denied;
  const parsed = parseInput(revokeMineInput, input);
  if (!parsed.ok) return parsed;
  return revokeFor(deps, ctx, ctx.caller.userId!, parsed.value.id, false);
}

export async function listUserConnectedApps(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<{ data: ConnectedApp[] }>> {
  const denied = authorize(ctx, 'users.listConnectedApps');
  if (denied) return denied;
  const parsed = parseInput(userInput, input);
  if (!parsed.ok) return parsed;
  if (!(await userSummary(reader(deps.orm), parsed.value.userId))) return userNotFound(parsed.value.userId);
  return listFor(deps, parsed.value.userId);
}

export async function revokeUserConnectedApp(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<null>> {
  const denied = authorize(ctx, 'users.revokeConnectedApp');
  if (denied) return denied;
  const parsed = parseInput(revokeInput, input);
  if (!parsed.ok) return parsed;
  if (!(await userSummary(reader(deps.orm), parsed.value.userId))) return userNotFound(parsed.value.userId);
  return revokeFor(deps, ctx, parsed.value.userId, parsed.value.id, true);
}
