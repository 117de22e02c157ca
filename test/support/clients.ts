// Test clients: seed a user holding given grants with an API key, and call REST/GraphQL as it.
import { randomBytes, randomUUID } from 'node:crypto';
import { formatApiKey, apiKeyPrefix, hashApiKey } from '../../server/domain/api-key.js';
import type { TestApp } from './app.js';

export interface SeededUser {
  userId: string;
  roleId: string;
  email: string;
  name: string;
  key: string;
  keyId: string;
}

/** Inserts a role with `grants`, a user of `type` holding it, and an API key for that user (direct SQL). */
export async function seedUserWithKey(
  app: TestApp,
  opts: { type?: 'human' | 'agent'; grants: string[]; name?: string },
): Promise<SeededUser> {
  const em = app.em();
  const now = new Date();
  const id = randomUUID();
  const roleId = randomUUID();
  const keyId = randomUUID();
  const name = opts.name ?? `${opts.type ?? 'agent'}-${id.slice(0, 8)}`;
  const email = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${id.slice(0, 8)}@test.example`;
  const key = formatApiKey(randomBytes(32));
  await em.transactional(async (tx) => {
    await tx.execute(
      `insert into roles (id, code, name, permissions, system, created_at, updated_at) values (?, ?, ?, ?::text[], false, ?, ?)`,
      [roleId, `test-${roleId.slice(0, 8)}`, `Test role ${roleId.slice(0, 8)}`, `{${opts.grants.join(',')}}`, now, now],
    );
    await tx.execute(
      `insert into users (id, type, email, name, status, created_at, updated_at) values (?, ?, ?, ?, 'active', ?, ?)`,
      [id, opts.type ?? 'agent', email, name, now, now],
    );
    await tx.execute(`insert into user_roles (user_id, role_id) values (?, ?)`, [id, roleId]);
    await tx.execute(
      `insert into api_keys (id, user_id, name, prefix, key_hash, created_at) values (?, ?, ?, ?, ?, ?)`,
      [keyId, id, `${name} key`, apiKeyPrefix(key), hashApiKey(key), now],
    );
  });
  return { userId: id, roleId, email, name, key, keyId };
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
