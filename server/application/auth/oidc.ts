// Single sign-on (SPEC §16): what an identity the OpenID provider vouched for may do here. A verified email
// of an active human signs in as that user, as a password would (same session, same audit entry, the same
// second factor when one is enrolled); agents and deactivated users never. With OIDC_PROVISION=true an
// unknown email becomes a user whose roles come from the role claim, and on every later sign-in of such a
// user the mapping is applied again: the assignments it made (`source = 'oidc'`) follow the claim, those
// given by hand stay (docs/identity.md#single-sign-on).
import { z } from 'zod';
import { ok, refuse, type Refusal, type Result } from '../../domain/errors.js';
import type { Deps } from '../context.js';
import type { OidcIdentity } from '../../auth/oidc-client.js';
import { reader, transact } from '../../persistence/transaction.js';
import { insertUser, roleIdsOfUser, touchUser } from '../../persistence/users.js';
import { lockIdentityChanges } from '../../persistence/role-graph.js';
import * as sso from '../../persistence/oidc.js';
import { hasConfirmedMfa } from '../../persistence/second-factor.js';
import { newMfaToken } from '../../auth/second-factor.js';
import { recordAudit, userTarget } from '../audit/audit.js';
import { guardLastAdmin } from '../users/transact.js';
import { clearPasswordAttempts, reservePasswordAttempt } from './throttle.js';
import { issueMfaChallenge } from './second-factor.js';
import { openSession, type AnonCtx, type LoginResult, type MfaChallenge } from './auth.js';

/** What the sign-in page needs to offer single sign-on (GET /auth/oidc). */
export const oidcInfoOutput = z
  .object({
    enabled: z.boolean().describe('Whether single sign-on is set up (OIDC_ISSUER).'),
    displayName: z.string().nullable().describe('The provider as the sign-in button names it (OIDC_DISPLAY_NAME); null when not set up.'),
  })
  .describe('Single sign-on as this service offers it.');

export const oidcCallbackQuery = z
  .object({
    code: z.string().optional().describe("The provider's authorization code."),
    state: z.string().optional().describe('The state this service sent, echoed back.'),
    error: z.string().optional().describe('The provider refused or failed the sign-in.'),
  })
  .describe("The provider's answer, as it sends the browser back.");

const METHOD = { method: { from: null, to: 'oidc' } };
const anonymous = (actx: AnonCtx) => ({ caller: null, via: actx.via, requestId: actx.requestId, clientAddress: actx.client });

/** The throttle's key for a client's sign-ins through the provider (the email is not known before the callback is checked). */
const throttleKey = (client: string) => `oidc:${client}`;

/**
 * Counts a callback as a failed attempt until it succeeds, under the password throttle (SPEC §6): at most 10
 * failed single sign-ons per client in 15 minutes, and they count towards the client's 100.
 */
export async function reserveOidcAttempt(deps: Deps, actx: AnonCtx): Promise<Refusal | null> {
  const refused = await reservePasswordAttempt(deps, throttleKey(actx.client), actx.client);
  if (!refused) return null;
  deps.metrics.rateLimited('login');
  await recordAudit(deps, reader(deps.orm), anonymous(actx), { action: 'auth.login_throttled', target: userTarget(null, 'single sign-on'), changes: METHOD });
  return refused;
}

/** A sign-in refused, recorded as a failed password login is: by nobody, on the email as the provider gave it. */
export async function oidcRefused(deps: Deps, actx: AnonCtx, email: string | null, detail: string): Promise<Refusal> {
  deps.metrics.loginFailure();
  await recordAudit(deps, reader(deps.orm), anonymous(actx), {
    action: 'auth.login_failed',
    target: userTarget(null, email ?? 'single sign-on'),
    changes: METHOD,
  });
  return refuse('invalid_credentials', detail);
}

const NO_ACCOUNT = 'No active operator account matches the email your identity provider confirmed.';

/** The role ids the claim maps to (codes in the map that name no role are skipped, and said in the log). */
async function mappedRoles(deps: Deps, identity: OidcIdentity): Promise<string[]> {
  const oidc = deps.config.oidc!;
  const codes = [...new Set(identity.groups.map((g) => oidc.roleMap[g]).filter((c): c is string => c !== undefined))];
  const ids = await sso.roleIdsByCodes(reader(deps.orm), codes);
  const unknown = codes.filter((c) => !ids.has(c));
  if (unknown.length) deps.logger.warn({ roleCodes: unknown }, 'OIDC_ROLE_MAP names roles that do not exist; they are skipped');
  return [...ids.values()];
}

/** Creates the user the provider vouched for, with the mapped roles; null when the email was taken meanwhile. */
async function provision(deps: Deps, actx: AnonCtx, identity: OidcIdentity, email: string): Promise<sso.SsoCandidate | null> {
  const roleIds = await mappedRoles(deps, identity);
  const id = deps.newId();
  const name = (identity.name?.trim() || email.split('@')[0]).slice(0, 200);
  const made = await transact(deps.orm, async (tx) => {
    await lockIdentityChanges(tx);
    if (await sso.ssoCandidateByEmail(tx, email)) return refuse('email_taken', 'taken');
    const at = deps.clock();
    await insertUser(tx, { id, type: 'human', email, name, passwordHash: null, linkedActorId: null, at });
    await sso.markProvisioned(tx, id);
    await sso.addMappedRoles(tx, id, roleIds);
    const by = { ...anonymous(actx), caller: { kind: 'human' as const, userId: id, userName: name, apiKey: null } };
    await recordAudit(deps, tx, by, {
      action: 'user.created',
      target: userTarget(id, email),
      changes: {
        type: { from: null, to: 'human' },
        email: { from: null, to: email },
        name: { from: null, to: name },
        provisionedBy: { from: null, to: 'oidc' },
      },
    });
    if (roleIds.length)
      await recordAudit(deps, tx, by, { action: 'user.roles_set', target: userTarget(id, email), changes: { roleIds: { from: [], to: roleIds } } });
    return ok(null);
  });
  return made.ok ? { id, type: 'human', status: 'active', email, provisioned_by: 'oidc' } : null;
}

/**
 * Applies the mapping again to a user single sign-on created: adds the mapped roles the claim now names,
 * removes the mapping's assignments it no longer names; hand-given roles are untouched. A change that would
 * leave no active human holding `*` is not made (SPEC §2), and said in the log.
 */
async function syncMappedRoles(deps: Deps, actx: AnonCtx, user: sso.SsoCandidate, identity: OidcIdentity, name: string | null): Promise<void> {
  const desired = await mappedRoles(deps, identity);
  const synced = await transact(deps.orm, async (tx) => {
    await lockIdentityChanges(tx);
    const before = await roleIdsOfUser(tx, user.id);
    const current = await sso.mappedRoleIds(tx, user.id);
    const lastAdmin = await guardLastAdmin(tx, async () => {
      await sso.removeMappedRoles(
        tx,
        user.id,
        current.filter((r) => !desired.includes(r)),
      );
      await sso.addMappedRoles(
        tx,
        user.id,
        desired.filter((r) => !current.includes(r)),
      );
    });
    if (lastAdmin) return lastAdmin;
    const after = await roleIdsOfUser(tx, user.id);
    if (after.length === before.length && after.every((r) => before.includes(r))) return ok(null);
    await touchUser(tx, user.id, deps.clock());
    const by = { ...anonymous(actx), caller: { kind: 'human' as const, userId: user.id, userName: name ?? user.email, apiKey: null } };
    await recordAudit(deps, tx, by, {
      action: 'user.roles_set',
      target: userTarget(user.id, user.email),
      changes: { roleIds: { from: before, to: after }, ...METHOD },
    });
    return ok(null);
  });
  if (!synced.ok) deps.logger.warn({ userId: user.id }, 'the role claim would remove the last active admin; their roles were kept');
}

/** The callback's identity, checked by the library: a session (or the second-factor step), or a refusal. */
export async function signInWithOidc(deps: Deps, actx: AnonCtx, identity: OidcIdentity): Promise<Result<LoginResult | MfaChallenge>> {
  const oidc = deps.config.oidc;
  if (!oidc) return refuse('not_found', 'Single sign-on is not set up on this service.');
  const { email } = identity;
  if (!email || !identity.emailVerified) return oidcRefused(deps, actx, email, 'Your identity provider did not confirm an email address for you.');
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (oidc.allowedDomains.length && !oidc.allowedDomains.includes(domain)) return oidcRefused(deps, actx, email, NO_ACCOUNT);

  let user = await sso.ssoCandidateByEmail(reader(deps.orm), email);
  const created = !user && oidc.provision;
  if (!user && oidc.provision) user = await provision(deps, actx, identity, email);
  if (!user || user.type !== 'human' || user.status !== 'active') return oidcRefused(deps, actx, email, NO_ACCOUNT);
  if (!created && user.provisioned_by === 'oidc' && oidc.roleClaim) await syncMappedRoles(deps, actx, user, identity, identity.name);

  const userId = user.id;
  const signedIn = await transact(deps.orm, async (tx): Promise<Result<LoginResult | MfaChallenge>> => {
    await clearPasswordAttempts(tx, throttleKey(actx.client));
    // The provider's sign-in does not stand in for the second factor enrolled here: the code step follows.
    if (await hasConfirmedMfa(tx, userId)) return ok(await issueMfaChallenge(deps, tx, userId, email, newMfaToken()));
    const session = await openSession(deps, tx, actx, userId, email, METHOD);
    return session ? ok(session) : refuse('invalid_credentials', NO_ACCOUNT);
  });
  return signedIn.ok ? signedIn : oidcRefused(deps, actx, email, NO_ACCOUNT);
}
