// The consent decision (SPEC §13): what a person may grant an AI client, and the audit of what they did.
import { z } from 'zod';
import { expandGrants, PERMISSION_CATALOGUE } from '../../domain/permissions.js';
import { ok, refuse, type Result } from '../../domain/errors.js';
import { describeGrantClient } from '../../persistence/oauth-store.js';
import { transact } from '../../persistence/transaction.js';
import { recordAudit } from '../audit/audit.js';
import { callerGrants } from '../authorize.js';
import type { Ctx, Deps } from '../context.js';
import { requirePasswordSession } from '../users/api-keys.js';

export interface ConsentClient {
  id: string;
  name: string;
  /** known by an https metadata document at its own address; a registered client says only what it claims */
  verified: boolean;
  redirectHost: string | null;
}

/** Only an active human with a password session authorizes; an agent or a key never can. */
export function mayConsent(ctx: Ctx) {
  return requirePasswordSession(ctx);
}

/** The permissions asked for (`scope`, space-separated; absent = all of the person's own), as the person holds them. */
export function consentScopes(ctx: Ctx, scope: string | undefined): { requested: string[] | null; grantable: string[] } {
  const grantable = expandGrants(callerGrants(ctx.caller));
  if (scope === undefined || scope.trim() === '') return { requested: null, grantable };
  const asked = new Set(scope.split(' ').filter(Boolean));
  return { requested: PERMISSION_CATALOGUE.filter((p) => asked.has(p)), grantable };
}

export const decisionInput = z.strictObject({
  decision: z.enum(['allow', 'deny']).describe('The person allows or denies the client.'),
  scopes: z.array(z.string().max(64)).max(PERMISSION_CATALOGUE.length).optional().describe('Narrowed permissions; default: all asked for.'),
  csrfToken: z.string().min(1).max(128),
});

/** The scopes the person grants: what they chose, within what was asked and what they hold. Never empty. */
export function chosenScopes(ctx: Ctx, scope: string | undefined, chosen: string[] | undefined): Result<string[]> {
  const { requested, grantable } = consentScopes(ctx, scope);
  const offer = requested === null ? grantable : requested.filter((p) => grantable.includes(p));
  const pick = chosen === undefined ? offer : offer.filter((p) => chosen.includes(p));
  const foreign = (chosen ?? []).filter((p) => !offer.includes(p));
  if (foreign.length)
    return refuse('validation_failed', `These permissions were not asked for or are not yours to grant: ${foreign.join(', ')}.`, { field: 'scopes' });
  if (pick.length === 0) return refuse('validation_failed', 'Choose at least one permission, or deny.', { field: 'scopes' });
  return ok(pick);
}

export async function recordConsent(deps: Deps, ctx: Ctx, client: ConsentClient, outcome: { grantId: string; scopes: string[] } | null): Promise<void> {
  await transact(deps.orm, async (tx) => {
    if (outcome) await describeGrantClient(tx, outcome.grantId, client.name, client.verified);
    await recordAudit(deps, tx, ctx, {
      action: outcome ? 'oauth.authorized' : 'oauth.denied',
      // audit target ids are uuids; grant and client ids are not, so they go with the changes
      target: outcome ? { type: 'connected_app', id: null, label: client.name } : { type: 'oauth_client', id: null, label: client.name },
      changes: {
        clientId: { from: null, to: client.id },
        ...(outcome ? { grantId: { from: null, to: outcome.grantId }, scopes: { from: null, to: outcome.scopes } } : {}),
      },
    });
    return ok(null);
  });
}
