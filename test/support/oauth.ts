// An OAuth client for tests, driven over plain HTTP: registration, PKCE, the consent API, the token endpoint.
import { createHash, randomBytes } from 'node:crypto';
import type { TestApp } from './app.js';

/** Tests learn their port after the app starts: the resource and the issuer follow the listening address. */
export function servePublicUrl(app: TestApp): void {
  app.deps.config.publicUrl = app.url;
}

export class CookieJar {
  private cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
  header(extra: Record<string, string> = {}): string {
    return [...this.cookies, ...Object.entries(extra)].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export async function registerClient(app: TestApp, body: Record<string, unknown> = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(`${app.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test assistant',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...body,
    }),
  });
  return { status: res.status, json: await res.json() };
}

export interface AuthorizeOptions {
  clientId: string;
  challenge?: string | null;
  method?: string;
  resource?: string | null;
  scope?: string;
  redirectUri?: string;
}

export function authorizeUrl(app: TestApp, o: AuthorizeOptions): string {
  const q = new URLSearchParams({ response_type: 'code', client_id: o.clientId, redirect_uri: o.redirectUri ?? REDIRECT_URI, state: 'st4te' });
  if (o.challenge !== null) q.set('code_challenge', o.challenge ?? pkcePair().challenge);
  if (o.challenge !== null) q.set('code_challenge_method', o.method ?? 'S256');
  if (o.resource !== null) q.set('resource', o.resource ?? `${app.url}/mcp`);
  if (o.scope !== undefined) q.set('scope', o.scope);
  return `${app.url}/oauth/authorize?${q}`;
}

/** Starts an authorization: the answer of the authorization endpoint (a redirect to consent, or a refusal). */
export async function startAuthorization(app: TestApp, jar: CookieJar, o: AuthorizeOptions): Promise<Response> {
  const res = await fetch(authorizeUrl(app, o), { redirect: 'manual', headers: { cookie: jar.header() } });
  jar.take(res);
  return res;
}

export async function consentDetails(app: TestApp, jar: CookieJar, uid: string, session: string | null) {
  const res = await fetch(`${app.url}/oauth/consent/${uid}/details`, { headers: { cookie: jar.header(session ? { session } : {}) } });
  return { status: res.status, json: await res.json() };
}

export async function consentDecision(app: TestApp, jar: CookieJar, uid: string, session: string, body: Record<string, unknown>, csrfHeader = true) {
  const res = await fetch(`${app.url}/oauth/consent/${uid}/decision`, {
    method: 'POST',
    headers: { cookie: jar.header({ session }), 'content-type': 'application/json', ...(csrfHeader ? { 'x-csrf-protection': '1' } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** The whole flow as a person who allows (optionally narrowing): the code, `iss` and the verifier. */
export async function authorizeCode(app: TestApp, session: string, clientId: string, o: { scope?: string; scopes?: string[] } = {}) {
  const jar = new CookieJar();
  const { verifier, challenge } = pkcePair();
  const start = await startAuthorization(app, jar, { clientId, challenge, scope: o.scope });
  const location = start.headers.get('location');
  if (start.status !== 303 || !location) throw new Error(`authorize: ${start.status} ${await start.text()}`);
  const uid = location.split('/').pop()!;
  const details = await consentDetails(app, jar, uid, session);
  if (details.status !== 200) throw new Error(`consent details: ${details.status} ${JSON.stringify(details.json)}`);
  const decision = await consentDecision(app, jar, uid, session, {
    decision: 'allow',
    csrfToken: details.json.csrfToken,
    ...(o.scopes ? { scopes: o.scopes } : {}),
  });
  if (decision.status !== 200) throw new Error(`consent decision: ${decision.status} ${JSON.stringify(decision.json)}`);
  const resumed = await fetch(new URL(decision.json.redirectTo, app.url), { redirect: 'manual', headers: { cookie: jar.header() } });
  if (!resumed.headers.get('location')) throw new Error(`resume ${decision.json.redirectTo}: ${resumed.status} ${await resumed.text()}`);
  const back = new URL(resumed.headers.get('location')!, app.url);
  return { code: back.searchParams.get('code'), iss: back.searchParams.get('iss'), error: back.searchParams.get('error'), verifier, back };
}

export async function tokenRequest(app: TestApp, form: Record<string, string>) {
  const res = await fetch(`${app.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, json: await res.json() };
}

export async function exchangeCode(app: TestApp, clientId: string, code: string, verifier: string, extra: Record<string, string> = {}) {
  return tokenRequest(app, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    code_verifier: verifier,
    resource: `${app.url}/mcp`,
    ...extra,
  });
}

/** A grant (connected app) `id` of the user, as the consent would leave it: for sweeps that need one to act on. */
export async function seedGrant(app: Pick<TestApp, 'deps'>, userId: string, id: string): Promise<void> {
  const payload = { accountId: userId, clientId: 'sweep-client', kind: 'Grant', jti: id, resources: { [`${app.deps.config.publicUrl}/mcp`]: 'tensions:read' } };
  await app.deps.orm.em
    .fork()
    .execute(
      `insert into oauth_store (kind, id, payload, user_id, client_name, client_verified, expires_at) values ('Grant', ?, ?::jsonb, ?, 'Sweep client', false, now() + interval '1 hour')`,
      [id, JSON.stringify(payload), userId],
    );
}
