// The OpenID Connect relying party (SPEC §16), by openid-client: discovery, the authorization request with
// PKCE, state and nonce, and the callback's checks (state, code exchange, ID token signature, issuer,
// audience, expiry, nonce), all done by the library. What a signed-in identity may do is decided elsewhere
// (server/application/auth/oidc.ts).
import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import * as client from 'openid-client';
import type { OidcConfig } from '../config.js';
import { hmacKey } from './session-token.js';

/** What the callback needs to check the answer: kept in a signed, HttpOnly cookie between the two legs. */
export interface OidcFlow {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export const OIDC_FLOW_COOKIE = 'oidc_flow';
export const OIDC_FLOW_TTL_MS = 10 * 60_000;

/** Its own key, derived from the server's secret, so no other token of the service passes for a flow. */
const flowKey = (sessionSecret: string) => hmacKey(createHmac('sha256', sessionSecret).update('market-service oidc flow v1').digest());

export function signFlow(sessionSecret: string, flow: OidcFlow): string {
  return jwt.sign({ s: flow.state, n: flow.nonce, v: flow.codeVerifier }, flowKey(sessionSecret), {
    algorithm: 'HS256',
    expiresIn: OIDC_FLOW_TTL_MS / 1000,
  });
}

export function verifyFlow(sessionSecret: string, token: string | undefined): OidcFlow | null {
  if (!token) return null;
  try {
    const p = jwt.verify(token, flowKey(sessionSecret), { algorithms: ['HS256'] });
    if (typeof p !== 'object' || typeof p.s !== 'string' || typeof p.n !== 'string' || typeof p.v !== 'string') return null;
    return { state: p.s, nonce: p.n, codeVerifier: p.v };
  } catch {
    return null;
  }
}

/** Plain http is accepted for a provider on this machine only (development, tests); anywhere else it is https. */
function isLoopback(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

/** The provider's metadata, discovered once per configuration and kept; a failed discovery is retried next time. */
export function oidcDiscovery(): (oidc: OidcConfig) => Promise<client.Configuration> {
  const known = new Map<string, Promise<client.Configuration>>();
  return (oidc) => {
    const key = `${oidc.issuer} ${oidc.clientId}`;
    let found = known.get(key);
    if (!found) {
      const issuer = new URL(oidc.issuer);
      found = client.discovery(issuer, oidc.clientId, oidc.clientSecret, undefined, isLoopback(issuer) ? { execute: [client.allowInsecureRequests] } : {});
      found.catch(() => known.delete(key));
      known.set(key, found);
    }
    return found;
  };
}

/** The provider's sign-in address for a new flow, and the flow to keep. */
export async function beginFlow(configuration: client.Configuration, oidc: OidcConfig, redirectUri: string): Promise<{ url: URL; flow: OidcFlow }> {
  const flow = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
  const url = client.buildAuthorizationUrl(configuration, {
    redirect_uri: redirectUri,
    scope: oidc.scopes,
    response_type: 'code',
    code_challenge: await client.calculatePKCECodeChallenge(flow.codeVerifier),
    code_challenge_method: 'S256',
    state: flow.state,
    nonce: flow.nonce,
  });
  return { url, flow };
}

/** Who the provider says signed in: the ID token's claims, completed from the UserInfo endpoint when one is missing. */
export interface OidcIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  /** the values of OIDC_ROLE_CLAIM (a string or an array of strings at the provider) */
  groups: string[];
}

const asGroups = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((g): g is string => typeof g === 'string') : typeof v === 'string' ? [v] : undefined;

/** Exchanges the code (the callback's full URL) and checks everything the protocol requires; throws when anything fails. */
export async function completeFlow(configuration: client.Configuration, oidc: OidcConfig, callbackUrl: URL, flow: OidcFlow): Promise<OidcIdentity> {
  const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
    pkceCodeVerifier: flow.codeVerifier,
    expectedState: flow.state,
    expectedNonce: flow.nonce,
    idTokenExpected: true,
  });
  const claims: Record<string, unknown> = { ...tokens.claims()! };
  const wanted = ['email', 'email_verified', ...(oidc.roleClaim ? [oidc.roleClaim] : [])];
  if (wanted.some((c) => claims[c] === undefined) && configuration.serverMetadata().userinfo_endpoint) {
    const info = await client.fetchUserInfo(configuration, tokens.access_token, String(claims.sub));
    for (const [k, v] of Object.entries(info)) if (claims[k] === undefined) claims[k] = v;
  }
  return {
    subject: String(claims.sub),
    email: typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : null,
    // Some providers send the boolean as a string; Entra ID says it with its optional claim xms_edov (docs/identity.md)
    emailVerified: claims.email_verified === true || claims.email_verified === 'true' || claims.xms_edov === true,
    name: typeof claims.name === 'string' ? claims.name : null,
    groups: (oidc.roleClaim ? asGroups(claims[oidc.roleClaim]) : undefined) ?? [],
  };
}
