// The only reader of process.env: parsed once, every problem reported at once.
import { isIP } from 'node:net';
import { z } from 'zod';

const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** An origin exactly as browsers send it: scheme, host and optional port, nothing else. */
function asOrigin(entry: string): string | null {
  try {
    const u = new URL(entry);
    const bare = u.pathname === '/' && !u.search && !u.hash && !u.username && !u.password && !entry.endsWith('/');
    if (!['http:', 'https:'].includes(u.protocol) || !bare || entry.includes('*')) return null;
    return u.origin;
  } catch {
    return null;
  }
}

/** Express's proxy-addr presets, or an IP address with an optional CIDR prefix. */
function isProxyAddress(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [ip, bits, ...rest] = entry.split('/');
  const family = isIP(ip);
  if (!family || rest.length) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

const corsOrigins = z.string().transform((v, c) => {
  const origins: string[] = [];
  for (const entry of list(v)) {
    const origin = asOrigin(entry);
    if (origin) origins.push(origin);
    else c.addIssue({ code: 'custom', message: `"${entry}" is not an origin like https://admin.example.com (no wildcard, path or trailing slash)` });
  }
  return origins;
});

/** A host name or IP address as a Host header names it (IPv6 in brackets), lower-cased; null if it is not one. */
function asHostName(entry: string): string | null {
  const bare = entry.trim().toLowerCase().replace(/\.$/, '');
  const inner = bare.startsWith('[') && bare.endsWith(']') ? bare.slice(1, -1) : bare;
  if (isIP(inner) === 6) return `[${inner}]`;
  if (bare !== inner) return null;
  if (isIP(bare) === 4) return bare;
  return /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/.test(bare) ? bare : null;
}

const allowedHosts = z.string().transform((v, c) => {
  const hosts: string[] = [];
  for (const entry of list(v)) {
    const host = asHostName(entry);
    if (host) hosts.push(host);
    else c.addIssue({ code: 'custom', message: `"${entry}" is not a host name or IP address like market.example.com (no scheme, port or wildcard)` });
  }
  return hosts;
});

const publicUrl = z.string().transform((v, c) => {
  try {
    const u = new URL(v);
    if (['http:', 'https:'].includes(u.protocol) && !u.username && !u.password && !u.search && !u.hash) return v.replace(/\/+$/, '');
  } catch {
    // reported below
  }
  c.addIssue({ code: 'custom', message: `"${v}" is not an http(s) URL like https://market.example.com (no query, fragment or credentials)` });
  return z.NEVER;
});

/** A hop count (0 = trust no proxy), `false`, or a comma list of addresses/CIDRs (Express `trust proxy`). */
const trustProxy = z.string().transform((v, c): number | string[] => {
  const t = v.trim();
  if (t === 'false') return 0;
  if (/^\d+$/.test(t)) {
    const hops = Number(t);
    if (hops <= 32) return hops;
  }
  const entries = list(t);
  const bad = entries.filter((e) => !isProxyAddress(e));
  if (entries.length && !bad.length) return entries;
  c.addIssue({
    code: 'custom',
    message: `must be a hop count (0–32), false, or a comma list of addresses/CIDRs (or loopback, linklocal, uniquelocal); not ${bad.map((b) => `"${b}"`).join(', ') || `"${t}"`}`,
  });
  return z.NEVER;
});

/** OIDC_ROLE_MAP: a JSON object from claim values (group names) to role codes. */
const oidcRoleMap = z.string().transform((v, c) => {
  try {
    const parsed: unknown = JSON.parse(v);
    const map = z.record(z.string().min(1), z.string().min(1).max(100)).safeParse(parsed);
    if (map.success) return map.data;
  } catch {
    // reported below
  }
  c.addIssue({ code: 'custom', message: 'must be a JSON object from claim values to role codes, like {"market-ops": "operator"}' });
  return z.NEVER;
});

/**
 * The cost of new argon2id password hashes. `standard`: the library's defaults (64 MiB, 3 passes, 4 lanes; ~125 ms a
 * verify on a 2-core machine). `floor`: SPEC §1's minimum (19 MiB, 2 passes, 1 lane), about a sixth of the CPU; the
 * test suite's, which hashes and verifies passwords by the hundred. Both meet the contract; a verify reads the
 * cost from the hash, so hashes of either kind keep working whichever is set.
 */
export const PASSWORD_HASHINGS = ['standard', 'floor'] as const;
export type PasswordHashing = (typeof PASSWORD_HASHINGS)[number];

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  SESSION_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(12),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_BUFFER_MS: z.coerce.number().int().min(0).max(10_000).default(100),
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: z.string().min(12).max(256).optional(),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  DB_PREPARED_STATEMENTS: z.enum(['true', 'false']).default('true'),
  PASSWORD_HASHING: z.enum(PASSWORD_HASHINGS).default('standard'),
  GRAPHIQL: z.enum(['true', 'false']).optional(),
  GRAPHQL_INTROSPECTION: z.enum(['true', 'false']).optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(100_000_000).default(300_000),
  MIGRATE_ON_START: z.enum(['true', 'false']).default('true'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).default('otlp'),
  METRICS: z.enum(['true', 'false']).default('true'),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  // No default here: unset leaves a limit set on the role, the database or the server alone (database.ts).
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).optional(),
  DB_LOCK_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).optional(),
  DB_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(5_000),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(300_000).optional(),
  CORS_ORIGINS: corsOrigins.optional(),
  TRUST_PROXY: trustProxy.optional(),
  PUBLIC_URL: publicUrl.optional(),
  ALLOWED_HOSTS: allowedHosts.optional(),
  OAUTH_ALLOW_PRIVATE_CLIENTS: z.enum(['true', 'false']).default('false'),
  FEED_HEARTBEAT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  NATS_URL: z
    .string()
    .regex(/^(nats|tls|wss?):\/\/\S+$/, 'must be a nats://, tls:// or ws(s):// URL (comma-separate several)')
    .optional(),
  NATS_SUBJECT_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be dot-separated tokens of letters, digits, _ and - (no wildcards)')
    .default('market.events'),
  NATS_STREAM: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, _ or -')
    .default('MARKET_EVENTS'),
  RELAY_LEASE_MS: z.coerce.number().int().min(1_000).max(600_000).default(15_000),
  REQUIRE_MFA_FOR_ADMINS: z.enum(['true', 'false']).default('false'),
  OIDC_ISSUER: z.url().optional(),
  OIDC_CLIENT_ID: z.string().min(1).max(500).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).max(2000).optional(),
  OIDC_ALLOWED_DOMAINS: z
    .string()
    .transform((v) => list(v).map((d) => d.toLowerCase()))
    .pipe(z.array(z.string().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/, 'must be email domains like example.com')))
    .optional(),
  OIDC_ROLE_CLAIM: z.string().min(1).max(200).optional(),
  OIDC_ROLE_MAP: oidcRoleMap.optional(),
  OIDC_PROVISION: z.enum(['true', 'false']).default('false'),
  OIDC_SCOPES: z.string().default('openid email profile'),
  OIDC_DISPLAY_NAME: z.string().trim().min(1).max(60).optional(),
  WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false'),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(128),
  WEBHOOKS: z.enum(['true', 'false']).default('true'),
  WEBHOOK_LEASE_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
});

/** Rules across variables, checked on the raw values so they are reported with every other problem. */
function crossChecks(env: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  if (env.NODE_ENV === 'production' && !env.SESSION_SECRET) problems.push('SESSION_SECRET: is required when NODE_ENV=production');
  if (env.OIDC_ISSUER && (!env.OIDC_CLIENT_ID || !env.OIDC_CLIENT_SECRET)) problems.push('OIDC_ISSUER: needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET');
  if (env.OIDC_ROLE_MAP && !env.OIDC_ROLE_CLAIM) problems.push('OIDC_ROLE_MAP: needs OIDC_ROLE_CLAIM (the claim holding the group names)');
  return problems;
}

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  /** undefined: generated and kept in the data folder (embedded default) */
  sessionSecret: string | undefined;
  sessionTtlMs: number;
  logLevel: string;
  /** `start`: how long a log line may wait in memory before it is written to stdout; 0 writes each at once */
  logBufferMs: number;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  dbPoolMax: number;
  /** PostgreSQL: the hot path's statements are kept prepared on each connection (false behind an old pooler) */
  dbPreparedStatements: boolean;
  /** argon2id's cost for new password hashes: the library's defaults, or SPEC §1's floor (the test suite's) */
  passwordHashing: PasswordHashing;
  graphiql: boolean;
  introspection: boolean;
  /** requests a minute per API key, and per client address for anonymous requests, on this instance; 0 = off */
  rateLimitPerMinute: number;
  /**
   * the server's per-connection limits (the CLI's long commands run without them); 0 = none; undefined =
   * the role's, database's or server's setting when one is made, else 30 s and 10 s
   */
  dbStatementTimeoutMs: number | undefined;
  dbLockTimeoutMs: number | undefined;
  /** how long a request waits for a pool connection before it is answered 503 `unavailable` (SPEC §7: 5 s) */
  dbAcquireTimeoutMs: number;
  /** GET /metrics served (METRICS=false turns it off), behind this bearer token when set */
  metrics: boolean;
  metricsToken: string | undefined;
  /** traces are exported over OTLP/HTTP when set (the exporter reads the other OTEL_* variables itself) */
  otlpEndpoint: string | undefined;
  /** `none`: spans are made and dropped (to price tracing without a collector) */
  tracesExporter: 'otlp' | 'none';
  /** false: start without migrating; /readyz answers 503 until `market-service migrate` has run */
  migrateOnStart: boolean;
  /** on SIGTERM, how long /readyz answers 503 while requests are still served, before the listener closes */
  shutdownGraceMs: number;
  /** origins allowed cross-origin access (with credentials), exact match; empty = none */
  corsOrigins: string[];
  /** Express `trust proxy`: hops to trust, or the proxies' addresses/CIDRs */
  trustProxy: number | string[];
  /** where clients reach the service (PUBLIC_URL; default http://HOST:PORT, localhost for a wildcard HOST) */
  publicUrl: string;
  /** SPEC §6: the host names (lower-case, IPv6 in brackets) the service answers to, any port */
  allowedHosts: string[];
  /** SPEC §13: fetch client metadata documents from loopback, private and link-local addresses too */
  oauthAllowPrivateClients: boolean;
  /** how often an open event stream (SSE) sends a comment line, so proxies keep it open */
  feedHeartbeatMs: number;
  /** the in-process relay to NATS JetStream runs when set (SPEC §10) */
  natsUrl: string | undefined;
  natsSubjectPrefix: string;
  natsStream: string;
  /** how long a relay's lease lasts without renewal; a standby takes over after it expires */
  relayLeaseMs: number;
  /** SPEC §16: a holder of `*` signed in with a password must enrol a second factor before anything else */
  requireMfaForAdmins: boolean;
  /** SPEC §16: OpenID Connect single sign-on for humans; null when OIDC_ISSUER is unset */
  oidc: OidcConfig | null;
  /** SPEC §14: webhooks may go to loopback, private, link-local addresses and over plain http (internal deployments, tests) */
  webhookAllowPrivate: boolean;
  /** webhook attempts this instance runs at once, over all endpoints */
  webhookConcurrency: number;
  /** false: this instance sends no webhooks (another does); the API still manages them */
  webhooks: boolean;
  /** how long an instance holds an endpoint's first attempts without renewal; another takes over after it */
  webhookLeaseMs: number;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** email domains allowed to sign in this way (lower-case); empty = any */
  allowedDomains: string[];
  /** the claim holding group names, mapped to role codes by `roleMap` */
  roleClaim: string | null;
  roleMap: Record<string, string>;
  /** create unknown users on their first sign-in (and keep their mapped roles in step) */
  provision: boolean;
  scopes: string;
  /** what the sign-in button names ("Sign in with Okta") */
  displayName: string;
}

/** HOST as a URL names it: IPv6 in brackets; a wildcard address (all interfaces) is reached as localhost. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return isIP(host) === 6 ? `[${host}]` : host;
}

/**
 * SPEC §6: the host of PUBLIC_URL and those in ALLOWED_HOSTS; when neither is set, loopback and HOST, so a
 * rebound DNS name (a page's own name resolving to this address) is refused whatever its Origin says.
 */
function answeredHosts(publicUrl: string | undefined, listed: string[] | undefined, host: string): string[] {
  const ofUrl = publicUrl ? new URL(publicUrl).hostname : undefined;
  const named = [...(ofUrl ? [asHostName(ofUrl) ?? ofUrl] : []), ...(listed ?? [])];
  const hosts = named.length ? named : ['localhost', '127.0.0.1', '[::1]', asHostName(host) ?? host];
  return [...new Set(hosts.map((h) => h.toLowerCase()))];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const blankless = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(blankless);
  const problems = [...(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)), ...crossChecks(blankless)];
  if (!parsed.success || problems.length) throw new ConfigError(problems);
  const e = parsed.data;
  const prod = e.NODE_ENV === 'production';
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    sessionSecret: e.SESSION_SECRET,
    sessionTtlMs: e.SESSION_TTL_HOURS * 3600_000,
    logLevel: e.LOG_LEVEL,
    logBufferMs: e.LOG_BUFFER_MS,
    adminEmail: e.ADMIN_EMAIL,
    adminPassword: e.ADMIN_PASSWORD,
    dbPoolMax: e.DB_POOL_MAX,
    dbPreparedStatements: e.DB_PREPARED_STATEMENTS === 'true',
    passwordHashing: e.PASSWORD_HASHING,
    graphiql: e.GRAPHIQL ? e.GRAPHIQL === 'true' : !prod,
    introspection: e.GRAPHQL_INTROSPECTION ? e.GRAPHQL_INTROSPECTION === 'true' : !prod,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    migrateOnStart: e.MIGRATE_ON_START === 'true',
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    tracesExporter: e.OTEL_TRACES_EXPORTER,
    metrics: e.METRICS === 'true',
    metricsToken: e.METRICS_TOKEN,
    dbStatementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    dbLockTimeoutMs: e.DB_LOCK_TIMEOUT_MS,
    dbAcquireTimeoutMs: e.DB_ACQUIRE_TIMEOUT_MS,
    // A load balancer needs a few probes to see the 503; on a laptop Ctrl-C should stop at once.
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS ?? (prod ? 10_000 : 0),
    corsOrigins: e.CORS_ORIGINS ?? [],
    trustProxy: e.TRUST_PROXY ?? ['loopback'],
    publicUrl: e.PUBLIC_URL ?? `http://${urlHost(e.HOST)}:${e.PORT}`,
    allowedHosts: answeredHosts(e.PUBLIC_URL, e.ALLOWED_HOSTS, e.HOST),
    oauthAllowPrivateClients: e.OAUTH_ALLOW_PRIVATE_CLIENTS === 'true',
    feedHeartbeatMs: e.FEED_HEARTBEAT_MS,
    natsUrl: e.NATS_URL,
    natsSubjectPrefix: e.NATS_SUBJECT_PREFIX,
    natsStream: e.NATS_STREAM,
    relayLeaseMs: e.RELAY_LEASE_MS,
    requireMfaForAdmins: e.REQUIRE_MFA_FOR_ADMINS === 'true',
    oidc: e.OIDC_ISSUER
      ? {
          issuer: e.OIDC_ISSUER,
          clientId: e.OIDC_CLIENT_ID!,
          clientSecret: e.OIDC_CLIENT_SECRET!,
          allowedDomains: e.OIDC_ALLOWED_DOMAINS ?? [],
          roleClaim: e.OIDC_ROLE_CLAIM ?? null,
          roleMap: e.OIDC_ROLE_MAP ?? {},
          provision: e.OIDC_PROVISION === 'true',
          scopes: e.OIDC_SCOPES,
          displayName: e.OIDC_DISPLAY_NAME ?? new URL(e.OIDC_ISSUER).hostname,
        }
      : null,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE === 'true',
    webhookConcurrency: e.WEBHOOK_CONCURRENCY,
    webhooks: e.WEBHOOKS === 'true',
    webhookLeaseMs: e.WEBHOOK_LEASE_MS,
  };
}
