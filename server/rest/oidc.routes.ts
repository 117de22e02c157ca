// Single sign-on's two legs (SPEC §16), both browser navigations: /auth/oidc/start sends the browser to the
// provider with a new flow (state, nonce, PKCE verifier) kept in a signed cookie; /auth/oidc/callback has the
// library check the answer, then signs in (or hands over to the second-factor step) and sends the browser
// back to the admin app. A refusal goes back to the sign-in page as `?sso_error=<reason>`, which the app
// shows as a plain sentence in the reader's language. GET /auth/oidc tells the sign-in page whether to offer it.
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { Deps } from '../application/context.js';
import { oidcRefused, reserveOidcAttempt, signInWithOidc } from '../application/auth/oidc.js';
import { beginFlow, completeFlow, OIDC_FLOW_COOKIE, OIDC_FLOW_TTL_MS, oidcDiscovery, signFlow, verifyFlow } from '../auth/oidc-client.js';
import { clientAddress, setSessionCookie } from '../http/session-cookie.js';
import { readCookie } from '../http/request-context.js';
import { sendCode } from './problem.js';

/** Why a sign-in went back to the sign-in page; the app's catalogues hold the sentence for each. */
export type SsoError = 'refused' | 'failed' | 'throttled' | 'unavailable';

const CALLBACK_PATH = '/api/v1/auth/oidc/callback';

export function oidcRoutes(deps: Deps): Router {
  const router = Router();
  const discover = oidcDiscovery();
  // Lax, not Strict: the callback is a top-level navigation coming from the provider's site.
  const flowCookie = (req: Request) => ({
    httpOnly: true,
    sameSite: 'lax' as const,
    path: '/api/v1/auth/oidc',
    secure: req.secure || deps.config.env === 'production',
  });
  const backToSignIn = (res: Response, reason: SsoError) => res.redirect(303, `/?sso_error=${reason}`);

  router.get('/auth/oidc', (_req: Request, res: Response) => {
    const oidc = deps.config.oidc;
    res.json({ enabled: !!oidc, displayName: oidc?.displayName ?? null });
  });

  router.get('/auth/oidc/start', async (req: Request, res: Response, next: NextFunction) => {
    const oidc = deps.config.oidc;
    if (!oidc) return sendCode(res, 'not_found', 'Single sign-on is not set up on this service.', req.requestId);
    try {
      const configuration = await discover(oidc);
      const { url, flow } = await beginFlow(configuration, oidc, `${deps.config.publicUrl}${CALLBACK_PATH}`);
      res.cookie(OIDC_FLOW_COOKIE, signFlow(deps.sessionSecret, flow), { ...flowCookie(req), maxAge: OIDC_FLOW_TTL_MS });
      res.set('Cache-Control', 'no-store').redirect(303, url.href);
    } catch (err) {
      req.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'the OpenID provider cannot be reached');
      if (!res.headersSent) backToSignIn(res, 'unavailable');
      else next(err);
    }
  });

  router.get('/auth/oidc/callback', async (req: Request, res: Response, next: NextFunction) => {
    const oidc = deps.config.oidc;
    if (!oidc) return sendCode(res, 'not_found', 'Single sign-on is not set up on this service.', req.requestId);
    res.set('Cache-Control', 'no-store');
    // One flow, one callback: the cookie goes whatever happens next.
    res.clearCookie(OIDC_FLOW_COOKIE, flowCookie(req));
    const actx = { via: 'rest' as const, requestId: req.requestId, client: clientAddress(req) };
    try {
      const throttled = await reserveOidcAttempt(deps, actx);
      if (throttled) return backToSignIn(res, 'throttled');
      const flow = verifyFlow(deps.sessionSecret, readCookie(req, OIDC_FLOW_COOKIE));
      let identity;
      try {
        if (!flow) throw new Error('no sign-in is under way in this browser (the flow cookie is missing or expired)');
        // The library checks state, the code with the PKCE verifier, and the ID token (signature, issuer, audience, expiry, nonce).
        identity = await completeFlow(await discover(oidc), oidc, new URL(req.originalUrl, deps.config.publicUrl), flow);
      } catch (err) {
        req.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'single sign-on callback refused');
        await oidcRefused(deps, actx, null, 'The sign-in with the identity provider could not be verified.');
        return backToSignIn(res, 'failed');
      }
      const result = await signInWithOidc(deps, actx, identity);
      if (!result.ok) return backToSignIn(res, result.code === 'rate_limited' ? 'throttled' : 'refused');
      // The second factor enrolled here still applies: the app's code step takes the token from the fragment,
      // which never reaches a server or a log.
      if (result.value.mfaRequired) return res.redirect(303, `/#mfaToken=${encodeURIComponent(result.value.mfaToken)}`);
      setSessionCookie(deps, req, res, result.value.token, result.value.maxAgeMs);
      res.redirect(303, '/');
    } catch (err) {
      next(err);
    }
  });
  return router;
}
