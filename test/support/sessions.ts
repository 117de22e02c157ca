// Session helpers: log in over REST, and call REST/GraphQL with the session cookie (and the CSRF header).
import { randomUUID } from 'node:crypto';
import { createRole } from '../../server/application/roles/roles.js';
import { createUser } from '../../server/application/users/users.js';
import { createActor } from '../../server/application/actors/actors.js';
import { client, SEED_PASSWORD, systemCtx, unwrap } from './clients.js';
import type { TestApp } from './app.js';

export interface LoginResponse {
  status: number;
  body: any;
  setCookie: string | null;
  /** the session JWT from Set-Cookie, when one was set */
  token: string | null;
}

export async function login(app: TestApp, email: string, password: string): Promise<LoginResponse> {
  const res = await fetch(`${app.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const setCookie = res.headers.get('set-cookie');
  const token = setCookie ? (/(?:^|,\s*)session=([^;]*)/.exec(setCookie)?.[1] ?? null) : null;
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, setCookie, token };
}

/** A client carrying the session cookie; `csrf: false` leaves out `X-CSRF-Protection: 1`. */
export function sessionClient(app: TestApp, token: string, opts: { csrf?: boolean } = {}) {
  return client(app, undefined, { cookie: `session=${token}`, ...(opts.csrf === false ? {} : { 'x-csrf-protection': '1' }) });
}

export const PASSWORD = SEED_PASSWORD;

/** A human with a password holding a fresh role with `grants` (through the use cases), logged in over REST. */
export async function seedHuman(app: TestApp, grants: string[], name = `human-${randomUUID().slice(0, 8)}`) {
  const tag = randomUUID().slice(0, 8);
  const email = `${name.toLowerCase()}-${tag.slice(0, 6)}@test.example`;
  const role = unwrap(await createRole(app.deps, systemCtx(), { code: `h-${tag}`, name: `Human role ${tag}`, permissions: grants }), 'seed role');
  const user = unwrap(await createUser(app.deps, systemCtx(), { type: 'human', email, name, password: PASSWORD, roleIds: [role.id] }), 'seed human');
  const res = await login(app, email, PASSWORD);
  if (res.status !== 200 || !res.token) throw new Error(`seedHuman: login failed ${res.status}`);
  return { userId: user.id, roleId: role.id, email, token: res.token };
}

export async function insertActor(app: TestApp, type: string, name = `Actor ${type}`): Promise<string> {
  return unwrap(await createActor(app.deps, systemCtx(), { name, type }), 'seed actor').id;
}
