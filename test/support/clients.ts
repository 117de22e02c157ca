// Test clients: seed a user holding given grants with an API key, and call REST/GraphQL as it.
import { randomUUID } from 'node:crypto';
import type { Database } from '../../server/persistence/database.js';
import { withInstanceParts } from '../../server/runtime.js';
import { systemCaller, type Ctx, type Deps } from '../../server/application/context.js';
import { createRole } from '../../server/application/roles/roles.js';
import { createUser } from '../../server/application/users/users.js';
import { createMyApiKey, provisionApiKey } from '../../server/application/users/api-keys.js';
import { login } from '../../server/application/auth/auth.js';
import { authenticateSession } from '../../server/auth/authenticate.js';
import { loadConfig } from '../../server/config.js';
import { createLogger } from '../../server/logger.js';
import { createMetrics } from '../../server/metrics.js';
import type { Result } from '../../server/domain/errors.js';
import type { TestApp } from './app.js';

export interface SeededUser {
  userId: string;
  roleId: string;
  email: string;
  name: string;
  key: string;
  keyId: string;
}

/** Seeds go through the use cases as the CLI's system caller (every permission), so they obey every rule a client does. */
export function systemCtx(): Ctx {
  return { caller: systemCaller(), via: 'cli', requestId: randomUUID() };
}

export function unwrap<T>(result: Result<T>, what: string): T {
  if (!result.ok) throw new Error(`${what}: ${result.code} ${result.detail} ${JSON.stringify(result.extensions ?? {})}`);
  return result.value;
}

/** Dependencies for seeding a database no app serves yet (the embedded one belongs to one process at a time). */
export function seedDeps(db: Pick<Database, 'orm' | 'traits'>): Deps {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PASSWORD_HASHING: 'floor' });
  const { orm } = db;
  return withInstanceParts(db, {
    orm,
    config,
    logger: createLogger('silent'),
    metrics: createMetrics(orm),
    clock: () => new Date(),
    newId: randomUUID,
    sessionSecret: 'seed-session-secret-that-is-long-enough-0123456789',
  });
}

/** The password seeded humans get, so they can also sign in. */
export const SEED_PASSWORD = 'correct-horse-battery';

/**
 * A role with `grants`, a user of `type` holding it, and an API key for that user, through the use cases:
 * an agent's key is provisioned; a human's is self-service, minted from a session of its own.
 */
export async function seedUserWithKey(app: Pick<TestApp, 'deps'>, opts: { type?: 'human' | 'agent'; grants: string[]; name?: string }): Promise<SeededUser> {
  const { deps } = app;
  const type = opts.type ?? 'agent';
  const tag = randomUUID().slice(0, 8);
  const name = opts.name ?? `${type}-${tag}`;
  const email = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${tag}@test.example`;
  const role = unwrap(await createRole(deps, systemCtx(), { code: `test-${tag}`, name: `Test role ${tag}`, permissions: opts.grants }), 'seed role');
  const user = unwrap(
    await createUser(deps, systemCtx(), { type, email, name, roleIds: [role.id], ...(type === 'human' ? { password: SEED_PASSWORD } : {}) }),
    'seed user',
  );
  let created: { id: string; key: string };
  if (type === 'agent') created = unwrap(await provisionApiKey(deps, systemCtx(), user.id, { name: `${name} key` }), 'seed key');
  else {
    const session = unwrap(await login(deps, { via: 'rest', requestId: randomUUID(), client: '127.0.0.1' }, { email, password: SEED_PASSWORD }), 'seed login');
    if (session.mfaRequired) throw new Error('seed: a new user has no second factor');
    const caller = await authenticateSession(deps, session.token);
    if (!caller) throw new Error('seed: the new session does not authenticate');
    created = unwrap(await createMyApiKey(deps, { caller, via: 'rest', requestId: randomUUID() }, { name: `${name} key` }), 'seed key');
  }
  return { userId: user.id, roleId: role.id, email, name, key: created.key, keyId: created.id };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

async function toResponse(res: Response): Promise<ApiResponse> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body };
}

/** A REST + GraphQL client authenticated by a bearer key (or anonymous when key is undefined). */
export function client(app: TestApp, key?: string, extraHeaders: Record<string, string> = {}) {
  const headers = (json: boolean): Record<string, string> => ({
    ...(key ? { authorization: `Bearer ${key}` } : {}),
    ...(json ? { 'content-type': 'application/json' } : {}),
    ...extraHeaders,
  });
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${app.url}/api/v1${path}`, {
      method,
      headers: headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(toResponse);
  return {
    get: (path: string) => call('GET', path),
    post: (path: string, body?: unknown) => call('POST', path, body),
    patch: (path: string, body?: unknown) => call('PATCH', path, body),
    put: (path: string, body?: unknown) => call('PUT', path, body),
    del: (path: string) => call('DELETE', path),
    /** GraphQL: resolves to { status, body: { data, errors } } */
    gql: (query: string, variables?: Record<string, unknown>) =>
      fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: headers(true),
        body: JSON.stringify({ query, variables }),
      }).then(toResponse),
  };
}
