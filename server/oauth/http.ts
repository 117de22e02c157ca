// The HTTP side of SPEC §13: RFC 9728 metadata, the authorization server (oidc-provider) under /oauth, the
// consent API the admin app's consent page calls, and the bearer-token check in front of /mcp.
import { createHmac, timingSafeEqual } from 'node:crypto';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { Ctx, Deps } from '../application/context.js';
import { PERMISSION_CATALOGUE } from '../domain/permissions.js';
import { refuse } from '../domain/errors.js';
import { authenticateOAuthToken, bearerToken } from '../auth/authenticate.js';
import { needsCsrfHeader } from '../http/request-context.js';
import { clientAddress } from '../http/session-cookie.js';
import { sendProblem } from '../rest/problem.js';
import { recordAudit } from '../application/audit/audit.js';
import { transact } from '../persistence/transaction.js';
import { ok } from '../domain/errors.js';
import { chosenScopes, consentScopes, decisionInput, mayConsent, recordConsent, type ConsentClient } from '../application/oauth/consent.js';
import { parseInput } from '../application/validate.js';
import { buildOAuthServer, type OAuthServer } from './provider.js';

const REGISTRATIONS_PER_HOUR = 20;
const HOUR_MS = 3600_000;

export function protectedResourceMetadataUrl(deps: Pick<Deps, 'config'>): string {
  return `${deps.config.publicUrl.replace(/\/+$/, '')}/.well-known/oauth-protected-resource/mcp`;
}

/** /mcp's 401 challenge (SPEC §13, RFC 9728 §5.1): where an OAuth client finds the authorization server. */
export function mcpChallenge(deps: Pick<Deps, 'config'>, presented: boolean): string {
  return `Bearer resource_metadata="${protectedResourceMetadataUrl(deps)}"${presented ? ', error="invalid_token"' : ''}`;
}

/** Everything OAuth: mount before the REST router; returns the router and the /mcp bearer check. */
export function oauth(deps: Deps) {
  let server: OAuthServer | undefined;
  // Built on first use: oidc-provider is not loaded by a service nobody connects an AI client to.
  const get = () =>
    (server ??= buildOAuthServer(deps, {
      onRefreshReuse: (_ctx, grantId) => {
        void transact(deps.orm, async (tx) => {
          await recordAudit(
            deps,
            tx,
            { caller: null, via: 'rest', requestId: 'oauth-token', clientAddress: null },
            {
              action: 'oauth.refresh_reuse_detected',
              target: { type: 'connected_app', id: null, label: null },
              changes: { grantId: { from: grantId, to: null } },
            },
          );
          return ok(null);
        }).catch((err: unknown) => deps.logger.warn({ err }, 'could not audit refresh token reuse'));
      },
      onRegistered: (_ctx, clientId, name) => {
        void transact(deps.orm, async (tx) => {
          await recordAudit(
            deps,
            tx,
            { caller: null, via: 'rest', requestId: 'oauth-register', clientAddress: null },
            {
              action: 'oauth.client_registered',
              target: { type: 'oauth_client', id: null, label: name ?? clientId },
              changes: { clientId: { from: null, to: clientId } },
            },
          );
          return ok(null);
        }).catch((err: unknown) => deps.logger.warn({ err }, 'could not audit client registration'));
      },
    }));
  // Read on use, not at build: PUBLIC_URL is the configuration's (tests set it once they know their port).
  const origin = () => deps.config.publicUrl.replace(/\/+$/, '');
  const resource = () => `${origin()}/mcp`;
  const router = Router();

  // RFC 9728: what /mcp is and who issues its tokens.
  const prm = (_req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json({
      resource: resource(),
      authorization_servers: [origin()],
      scopes_supported: [...PERMISSION_CATALOGUE],
      bearer_methods_supported: ['header'],
      resource_name: 'Market service MCP',
    });
  };
  router.get(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'], prm);

  // The provider sees the public origin, whatever host or proxy the request came through, so every URL it
  // writes (metadata, redirects, `iss`) is PUBLIC_URL's.
  const toProvider = (req: Request, res: Response) => {
    const publicUrl = new URL(origin());
    req.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
    req.headers['x-forwarded-host'] = publicUrl.host;
    req.headers['x-forwarded-for'] = clientAddress(req);
    if (req.path === '/.well-known/oauth-authorization-server') req.url = '/.well-known/openid-configuration';
    get().provider.callback()(req, res);
  };
  router.get(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'], toProvider);

  // RFC 7591 registration is open (MCP clients register themselves), so it is paced per client address.
  const registrations = new Map<string, { start: number; count: number }>();
  router.post('/oauth/register', (req, res, next) => {
    const now = deps.clock().getTime();
    const key = clientAddress(req);
    let w = registrations.get(key);
    if (!w || now - w.start >= HOUR_MS) {
      if (registrations.size > 10_000) registrations.clear();
      w = { start: now, count: 0 };
      registrations.set(key, w);
    }
    if (++w.count <= REGISTRATIONS_PER_HOUR) return next();
    const retryAfterSeconds = Math.max(1, Math.ceil((w.start + HOUR_MS - now) / 1000));
    sendProblem(res, refuse('rate_limited', 'Too many client registrations from this address; try again later.', { retryAfterSeconds }), req.requestId);
  });

  // The consent page's API. The page itself is the admin app's (served for /oauth/consent/:uid); these
  // answers live under its path, where the provider's interaction cookie is scoped.
  const csrfFor = (uid: string, sessionId: string) => createHmac('sha256', deps.sessionSecret).update(`consent:${uid}:${sessionId}`).digest('base64url');
  const consentCaller = (req: Request, res: Response): Ctx | null => {
    if (!req.caller) {
      sendProblem(res, refuse('unauthenticated', 'Sign in to the admin app to continue.'), req.requestId);
      return null;
    }
    const ctx: Ctx = { caller: req.caller, via: 'rest', requestId: req.requestId, clientAddress: clientAddress(req) };
    const denied = mayConsent(ctx);
    if (denied) {
      sendProblem(res, denied, req.requestId);
      return null;
    }
    return ctx;
  };
  const details = async (req: Request, res: Response) => {
    const { provider } = get();
    const interaction = await provider.interactionDetails(req, res).catch(() => null);
    if (!interaction || interaction.uid !== req.params.uid) {
      sendProblem(res, refuse('not_found', 'This authorization request is unknown or has expired; start again from the AI client.'), req.requestId);
      return null;
    }
    const clientId = String(interaction.params.client_id ?? '');
    const client = await provider.Client.find(clientId).catch(() => undefined);
    if (!client) {
      sendProblem(res, refuse('not_found', 'The client of this request is unknown.'), req.requestId);
      return null;
    }
    const redirect = typeof interaction.params.redirect_uri === 'string' ? URL.parse(interaction.params.redirect_uri) : null;
    const view: ConsentClient = {
      id: client.clientId,
      name: client.clientName ?? client.clientId,
      verified: client.clientIdMetadataDocument === true,
      redirectHost: redirect ? redirect.host || redirect.protocol : null,
    };
    return { interaction, client: view };
  };
  router.get('/oauth/consent/:uid/details', async (req, res, next) => {
    try {
      const ctx = consentCaller(req, res);
      if (!ctx) return;
      const found = await details(req, res);
      if (!found) return;
      const scopes = consentScopes(ctx, typeof found.interaction.params.scope === 'string' ? found.interaction.params.scope : undefined);
      res.setHeader('Cache-Control', 'no-store');
      res.json({
        client: found.client,
        requested: scopes.requested,
        grantable: scopes.grantable,
        csrfToken: csrfFor(found.interaction.uid, ctx.caller.sessionId!),
      });
    } catch (err) {
      next(err);
    }
  });
  router.post('/oauth/consent/:uid/decision', express.json({ limit: 16 * 1024 }), async (req, res, next) => {
    try {
      const ctx = consentCaller(req, res);
      if (!ctx) return;
      if (needsCsrfHeader(req)) return sendProblem(res, refuse('csrf_required', 'This request needs the header X-CSRF-Protection: 1.'), req.requestId);
      const parsed = parseInput(decisionInput, req.body);
      if (!parsed.ok) return sendProblem(res, parsed, req.requestId);
      const expected = Buffer.from(csrfFor(String(req.params.uid), ctx.caller.sessionId!));
      const given = Buffer.from(parsed.value.csrfToken);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return sendProblem(res, refuse('csrf_required', 'The consent form is stale or was not sent by this page; reload it.'), req.requestId);
      }
      const found = await details(req, res);
      if (!found) return;
      const { provider } = get();
      let result: Record<string, unknown>;
      let outcome: { grantId: string; scopes: string[] } | null = null;
      if (parsed.value.decision === 'deny') {
        result = { error: 'access_denied', error_description: 'The person denied access.' };
      } else {
        const scope = typeof found.interaction.params.scope === 'string' ? found.interaction.params.scope : undefined;
        const chosen = chosenScopes(ctx, scope, parsed.value.scopes);
        if (!chosen.ok) return sendProblem(res, chosen, req.requestId);
        const grant = new provider.Grant({ accountId: ctx.caller.userId!, clientId: found.client.id });
        // The permissions are scopes of the provider and of the resource: granted (and the rest refused) as both.
        grant.addOIDCScope(chosen.value.join(' '));
        grant.addResourceScope(resource(), chosen.value.join(' '));
        const rejected = (scope ?? '').split(' ').filter((s) => s && !chosen.value.includes(s));
        if (rejected.length) {
          grant.rejectOIDCScope(rejected.join(' '));
          grant.rejectResourceScope(resource(), rejected.join(' '));
        }
        const grantId = await grant.save();
        outcome = { grantId, scopes: chosen.value };
        result = { login: { accountId: ctx.caller.userId!, remember: false }, consent: { grantId } };
      }
      const redirectTo = await provider.interactionResult(req, res, result, { mergeWithLastSubmission: false });
      await recordConsent(deps, ctx, found.client, outcome);
      res.setHeader('Cache-Control', 'no-store');
      res.json({ redirectTo });
    } catch (err) {
      next(err);
    }
  });
  // The consent page must not be framed (clickjacking): stricter than the app's frame-ancestors 'self'.
  router.use('/oauth/consent', (_req, res, next) => {
    const csp = res.getHeader('Content-Security-Policy');
    if (typeof csp === 'string') res.setHeader('Content-Security-Policy', csp.replace(/frame-ancestors [^;]*/, "frame-ancestors 'none'"));
    res.setHeader('X-Frame-Options', 'DENY');
    next();
  });
  // Everything else under /oauth is the provider's (authorize, token, revoke, register, jwks); the consent
  // page falls through to the admin app.
  router.use((req, res, next) => {
    if (!req.path.startsWith('/oauth/') || req.path.startsWith('/oauth/consent/')) return next();
    toProvider(req, res);
  });

  /** In front of /mcp: a key has already authenticated; otherwise an OAuth access token may. The MCP handler answers 401 (`mcpChallenge`). */
  const mcpBearer = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const bearer = bearerToken(req.get('authorization'));
      if (!req.caller && typeof bearer === 'string' && !bearer.startsWith('mk_')) {
        const result = await authenticateOAuthToken(deps, bearer, resource());
        if (result.ok) {
          req.caller = result.value;
          req.authRefusal = null;
        } else req.authRefusal = result;
      }
      next();
    } catch (err) {
      next(err);
    }
  };
  return { router, mcpBearer };
}
