// The authorization server for /mcp (SPEC §13): oidc-provider, configured as a plain OAuth 2.1 server for one
// resource. Why oidc-provider and not the MCP SDK's auth router: it is OpenID-certified, keeps up with the
// drafts the MCP authorization spec names (Client ID Metadata Documents, RFC 9207 `iss`, RFC 8707 resource
// indicators), refuses `plain` PKCE, detects code and refresh-token reuse by revoking the grant, and fetches
// metadata documents with SSRF protection, size and time limits; the SDK's router leaves storage, consent,
// reuse detection and metadata documents to the application.
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { Provider, errors, type KoaContext } from 'oidc-provider';
import type { Deps } from '../application/context.js';
import { PERMISSION_CATALOGUE } from '../domain/permissions.js';
import { reader } from '../persistence/transaction.js';
import { activeHuman } from '../persistence/oauth-store.js';
import { oauthAdapter } from './adapter.js';

export const ACCESS_TOKEN_TTL_S = 3600;
export const CODE_TTL_S = 60;
const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;
const GRANT_TTL_S = 365 * 24 * 3600;
const INTERACTION_TTL_S = 10 * 60;

export const OAUTH_PATHS = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  end_session: '/oauth/logout',
  userinfo: '/oauth/userinfo',
  introspection: '/oauth/introspect',
  pushed_authorization_request: '/oauth/par',
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
} as const;

export interface OAuthServer {
  provider: Provider;
  issuer: string;
  resource: string;
  /** consent pages live under this path (the provider's interaction cookie is scoped to it) */
  consentPath(uid: string): string;
}

export function mcpResource(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/mcp`;
}

export function buildOAuthServer(
  deps: Deps,
  hooks: { onRefreshReuse(ctx: KoaContext, grantId: string): void; onRegistered(ctx: KoaContext, clientId: string, name: string | undefined): void },
): OAuthServer {
  const issuer = deps.config.publicUrl.replace(/\/+$/, '');
  const resource = mcpResource(issuer);
  const consentPath = (uid: string) => `/oauth/consent/${uid}`;
  const cookieKey = createHmac('sha256', deps.sessionSecret).update('oauth-cookies').digest('base64url');
  const provider = new Provider(issuer, {
    adapter: oauthAdapter(deps),
    clients: [],
    // Known here too (not only as the resource's): clients register with `scope` naming them (RFC 7591).
    scopes: ['openid', 'offline_access', ...PERMISSION_CATALOGUE],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    routes: OAUTH_PATHS,
    cookies: { keys: [cookieKey] },
    // Access tokens are opaque and checked in the database; this key would only sign ID tokens, which a
    // client asking for `openid` gets. One per instance: nothing this service verifies is signed with it.
    jwks: { keys: [{ ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'RS256' }] },
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    pkce: { required: () => true },
    rotateRefreshToken: true,
    issueRefreshToken: (_ctx: KoaContext, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    // Consent every time: an earlier grant never silently authorizes a new request.
    loadExistingGrant: async (ctx: KoaContext) => {
      const grantId = ctx.oidc?.result?.consent?.grantId;
      return grantId ? provider.Grant.find(grantId) : undefined;
    },
    findAccount: async (_ctx: KoaContext, sub: string) => {
      // only an active human is an account: a deactivated person's refresh token stops here too
      const user = await activeHuman(reader(deps.orm), sub);
      return user ? { accountId: sub, claims: () => ({ sub }) } : undefined;
    },
    interactions: { url: (_ctx: KoaContext, interaction: { uid: string }) => consentPath(interaction.uid) },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: CODE_TTL_S,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Grant: GRANT_TTL_S,
      Interaction: INTERACTION_TTL_S,
      Session: INTERACTION_TTL_S,
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      introspection: { enabled: false },
      revocation: { enabled: true },
      registration: { enabled: true, initialAccessToken: false },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        // oidc-provider refuses non-https ids and, unless private clients are allowed, special-use addresses
        allowFetch: () => true,
        cacheDuration: { min: 300, max: 86400 },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: KoaContext, indicator: string) => {
          if (indicator !== resource) throw new errors.InvalidTarget(`The only resource here is ${resource}.`);
          return { scope: PERMISSION_CATALOGUE.join(' '), audience: resource, accessTokenTTL: ACCESS_TOKEN_TTL_S, accessTokenFormat: 'opaque' };
        },
      },
    },
    // Metadata documents: at most 5 KiB, fetched within oidc-provider's 2.5 s, redirects not followed, and
    // (unless OAUTH_ALLOW_PRIVATE_CLIENTS) through its dispatcher that refuses special-use addresses.
    fetchResponseBodyLimits: { 'client_id metadata document': 5 * 1024 },
    ...(deps.config.oauthAllowPrivateClients
      ? { fetch: (url: string, options: RequestInit & { dispatcher?: unknown }) => fetch(url, { ...options, dispatcher: undefined } as RequestInit) }
      : {}),
    enableHttpPostMethods: false,
    renderError: (ctx: KoaContext, out: Record<string, unknown>) => {
      ctx.set('Content-Type', 'application/json; charset=utf-8');
      ctx.body = out;
    },
  });
  provider.proxy = true;
  provider.use(async (ctx, next) => {
    if (ctx.path === OAUTH_PATHS.authorization && ctx.method === 'GET') {
      // RFC 8707 is required here, not defaulted: a token must name the one resource it is for.
      if (ctx.query.resource === undefined) {
        ctx.status = 400;
        ctx.body = { error: 'invalid_target', error_description: `The resource parameter is required: ${resource}.` };
        return;
      }
      // No scope asks for everything the person holds (SPEC §13); the consent offers only what they hold.
      if (ctx.query.scope === undefined || ctx.query.scope === '') ctx.query = { ...ctx.query, scope: PERMISSION_CATALOGUE.join(' ') };
    }
    await next();
  });
  provider.on('grant.error', (ctx: KoaContext, err: Error & { error_detail?: string }) => {
    const grantId = ctx.oidc?.entities?.RefreshToken?.grantId;
    if (err.error_detail === 'refresh token already used' && grantId) hooks.onRefreshReuse(ctx, grantId);
  });
  provider.on('registration_create.success', (ctx: KoaContext, client: { clientId: string; clientName?: string }) => {
    hooks.onRegistered(ctx, client.clientId, client.clientName);
  });
  return { provider, issuer, resource, consentPath };
}
