// OAuth for /mcp (issue 32, SPEC §13), on a database of its own: a `tools/call` with an OAuth access token
// against the same call with an API key of the same person (alternating, same run), and 50 whole OAuth
// flows at once (discovery, registration, authorization with PKCE, consent, code exchange, a tools/call,
// a refresh), which must all succeed.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Api } from './lib/api.js';
import { createBenchDatabase } from './lib/pg.js';
import { startService } from './lib/service.js';
import { fmt, median, type Figure } from './report.js';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const FLOWS = 50;
const CONNECTIONS = 8;
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

interface McpLoad {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

interface FlowResult {
  ok: boolean;
  ms: number;
  failure?: string;
}

export interface OAuthRaw {
  rounds: { key: McpLoad; token: McpLoad }[];
  flows: FlowResult[];
  flowsWallMs: number;
}

/** `tools/call get_tension` on /mcp with one bearer (a key or a token), stateless, for `seconds`. */
async function mcpLoad(url: string, bearer: string, tensionId: string, seconds: number): Promise<McpLoad> {
  let failed = 0;
  const result = await autocannon({
    url: `${url}/mcp`,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 30,
    method: 'POST',
    headers: { ...MCP_HEADERS, authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_tension', arguments: { id: tensionId } } }),
    setupClient(client) {
      // an MCP error result answers 200: count it as a failure
      client.on('body', (body: Buffer) => {
        if (body.includes('"isError":true') || body.includes('"error"')) failed++;
      });
    },
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx + failed,
    errors: result.errors + result.timeouts,
  };
}

/** Two halves of one side of a round: throughput averaged, the worse p99, counts summed. */
function both(a: McpLoad, b: McpLoad): McpLoad {
  return {
    rps: (a.rps + b.rps) / 2,
    p50: (a.p50 + b.p50) / 2,
    p99: Math.max(a.p99, b.p99),
    requests: a.requests + b.requests,
    non2xx: a.non2xx + b.non2xx,
    errors: a.errors + b.errors,
  };
}

/** The cookies a response sets, merged into a jar (name → value). */
function take(jar: Map<string, string>, res: Response): void {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const eq = pair.indexOf('=');
    jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
}
const cookieHeader = (jar: Map<string, string>, extra = '') => [...[...jar].map(([k, v]) => `${k}=${v}`), ...(extra ? [extra] : [])].join('; ');

async function expectStatus(res: Response, status: number, step: string): Promise<Response> {
  if (res.status !== status) throw new Error(`${step}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  return res;
}

/**
 * One AI client connecting, as an MCP client does it: the two metadata documents, a registration (from its
 * own address: registrations are paced per address, and 50 clients are 50 machines), the authorization
 * request with PKCE, the person's consent (their session), the code exchange, one tools/call, a refresh.
 * Answers the access token of the refresh.
 */
async function oneFlow(url: string, session: string, i: number): Promise<string> {
  const resource = `${url}/mcp`;
  const prm = await (await expectStatus(await fetch(`${url}/.well-known/oauth-protected-resource/mcp`), 200, 'resource metadata')).json();
  const as = await (await expectStatus(await fetch(`${url}/.well-known/oauth-authorization-server`), 200, 'server metadata')).json();
  if (prm.resource !== resource) throw new Error(`resource metadata names ${prm.resource}`);
  const reg = await expectStatus(
    await fetch(as.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.77.${Math.floor(i / 250)}.${(i % 250) + 1}` },
      body: JSON.stringify({
        client_name: `Bench client ${i}`,
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    }),
    201,
    'registration',
  );
  const clientId = (await reg.json()).client_id as string;
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    state: `s${i}`,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource,
    scope: 'tensions:read actors:read',
  });
  const jar = new Map<string, string>();
  const start = await expectStatus(await fetch(`${as.authorization_endpoint}?${q}`, { redirect: 'manual' }), 303, 'authorize');
  take(jar, start);
  const uid = start.headers.get('location')!.split('/').pop()!;
  const details = await expectStatus(
    await fetch(`${url}/oauth/consent/${uid}/details`, { headers: { cookie: cookieHeader(jar, session) } }),
    200,
    'consent details',
  );
  const { csrfToken } = await details.json();
  const decision = await expectStatus(
    await fetch(`${url}/oauth/consent/${uid}/decision`, {
      method: 'POST',
      headers: { cookie: cookieHeader(jar, session), 'content-type': 'application/json', 'x-csrf-protection': '1' },
      body: JSON.stringify({ decision: 'allow', csrfToken }),
    }),
    200,
    'consent decision',
  );
  const resumed = await fetch(new URL((await decision.json()).redirectTo, url), { redirect: 'manual', headers: { cookie: cookieHeader(jar) } });
  const back = new URL(resumed.headers.get('location') ?? 'about:blank', url);
  const code = back.searchParams.get('code');
  if (!code || back.searchParams.get('iss') !== as.issuer) throw new Error(`resume: ${resumed.status} ${back.href.slice(0, 200)}`);
  const token = async (form: Record<string, string>, step: string) =>
    (
      await expectStatus(
        await fetch(as.token_endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) }),
        200,
        step,
      )
    ).json();
  const tokens = await token(
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier, resource },
    'code exchange',
  );
  const call = await expectStatus(
    await fetch(resource, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${tokens.access_token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    }),
    200,
    'tools/call',
  );
  const text = await call.text();
  if (!text.includes('"oauth"')) throw new Error(`tools/call whoami: ${text.slice(0, 200)}`);
  const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId, resource }, 'refresh');
  return refreshed.access_token as string;
}

async function timedFlow(url: string, session: string, i: number): Promise<FlowResult> {
  const t0 = performance.now();
  try {
    await oneFlow(url, session, i);
    return { ok: true, ms: performance.now() - t0 };
  } catch (err) {
    return { ok: false, ms: performance.now() - t0, failure: (err as Error).message };
  }
}

export async function oauthBench(
  serverUrl: string,
  outDir: string,
  opts: { seconds: number; rounds: number },
  log: (s: string) => void,
): Promise<{ figures: Figure[]; raw: OAuthRaw }> {
  const db = await createBenchDatabase(serverUrl, process.env.BENCH_OAUTH_DB_NAME ?? `bench_oauth_${Date.now()}_${process.pid}`);
  const raw: OAuthRaw = { rounds: [], flows: [], flowsWallMs: 0 };
  try {
    const env = { databaseUrl: db.url, dataDir: await mkdtemp(join(tmpdir(), 'bench-oauth-')), logFile: join(outDir, 'service-oauth.log') };
    const svc = await startService(env);
    try {
      const admin = await Api.loginAdmin(svc.url);
      const session = admin.auth.cookie;
      const { key } = await admin.call<{ key: string }>('POST', '/me/api-keys', { name: 'bench oauth' });
      const withKey = admin.withKey(key);
      const actor = await withKey.call<{ id: string }>('POST', '/actors', { name: 'Bench OAuth Org', type: 'organization' });
      const sensed = await withKey.call<{ tension: { id: string } }>('POST', '/tensions', { name: 'Bench OAuth tension', actorId: actor.id, score: 5 });
      // the token of one flow like the 50 below (the access token its refresh answered)
      const token = await oneFlow(svc.url, session, FLOWS);
      if (!token) throw new Error('no access token from the setup flow');
      log(`oauth: a key and a token of the same person; ${opts.rounds} rounds of ${opts.seconds} s, ${CONNECTIONS} connections`);
      // Each round mirrors the order (key, token, token, key; half the time each): this machine's throughput
      // drifts by tens of percent within a minute, and the mirrored order puts a steady drift on both sides.
      const half = Math.max(1, Math.round(opts.seconds / 2));
      for (let r = 0; r < opts.rounds; r++) {
        const k1 = await mcpLoad(svc.url, key, sensed.tension.id, half);
        const t1 = await mcpLoad(svc.url, token, sensed.tension.id, half);
        const t2 = await mcpLoad(svc.url, token, sensed.tension.id, half);
        const k2 = await mcpLoad(svc.url, key, sensed.tension.id, half);
        const keyed = both(k1, k2);
        const tokened = both(t1, t2);
        raw.rounds.push({ key: keyed, token: tokened });
        log(`oauth round ${r + 1}: key ${fmt(keyed.rps)} req/s, token ${fmt(tokened.rps)} req/s`);
      }
      const t0 = performance.now();
      raw.flows = await Promise.all(Array.from({ length: FLOWS }, (_, i) => timedFlow(svc.url, session, i)));
      raw.flowsWallMs = performance.now() - t0;
      const failures = raw.flows.filter((f) => !f.ok);
      log(`oauth: ${FLOWS} concurrent flows in ${fmt(raw.flowsWallMs)} ms, ${failures.length} failed${failures.length ? `: ${failures[0].failure}` : ''}`);
    } finally {
      await svc.stop();
    }
  } finally {
    await db.drop();
  }
  return { figures: oauthFigures(raw), raw };
}

function oauthFigures(raw: OAuthRaw): Figure[] {
  const costRatio = median(raw.rounds.map((r) => r.key.rps / r.token.rps));
  const loads = raw.rounds.flatMap((r) => [r.key, r.token]);
  const bad = loads.reduce((n, l) => n + l.non2xx + l.errors, 0);
  const failed = raw.flows.filter((f) => !f.ok).length;
  const ms = raw.flows.map((f) => f.ms).sort((a, b) => a - b);
  return [
    {
      name: `MCP tools/call get_tension, token vs key (${CONNECTIONS} conns): cost = key req/s ÷ token req/s`,
      value: `${fmt(median(raw.rounds.map((r) => r.token.rps)))} req/s`,
      against: `${fmt(median(raw.rounds.map((r) => r.key.rps)))} req/s`,
      ratio: costRatio,
      target: '<= 1.1',
      pass: costRatio <= 1.1,
    },
    {
      name: 'MCP tools/call p99, token vs key',
      value: fmt(median(raw.rounds.map((r) => r.token.p99)), ' ms'),
      against: fmt(median(raw.rounds.map((r) => r.key.p99)), ' ms'),
      ratio: median(raw.rounds.map((r) => r.token.p99 / r.key.p99)),
    },
    { name: `${FLOWS} concurrent OAuth flows: failed`, value: String(failed), target: '= 0', pass: failed === 0 },
    {
      name: `${FLOWS} concurrent OAuth flows: wall, flow p50 / max`,
      value: `${fmt(raw.flowsWallMs, ' ms')}, ${fmt(median(ms), ' ms')} / ${fmt(ms[ms.length - 1], ' ms')}`,
    },
    { name: 'oauth loads: non-2xx, MCP error results and errors', value: String(bad), target: '= 0', pass: bad === 0 },
  ];
}
