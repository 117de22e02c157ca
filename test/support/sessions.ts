// Session helpers: log in over REST, and call REST/GraphQL with the session cookie (and the CSRF header).
import { randomUUID } from 'node:crypto';
import { hashPassword } from '../../server/auth/password.js';
import { client } from './clients.js';
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

export const PASSWORD = 'correct-horse-battery';

/** A human with a password holding a fresh role with `grants` (direct SQL), logged in. */
export async function seedHuman(app: TestApp, grants: string[], name = `human-${randomUUID().slice(0, 8)}`) {
  const em = app.em();
  const id = randomUUID();
  const roleId = randomUUID();
  const email = `${name.toLowerCase()}-${id.slice(0, 6)}@test.example`;
  const now = new Date();
  const hash = await hashPassword(PASSWORD);
  await em.transactional(async (tx) => {
    await tx.execute(
      `insert into roles (id, code, name, permissions, system, created_at, updated_at) values (?, ?, ?, ?::text[], false, ?, ?)`,
      [roleId, `h-${roleId.slice(0, 8)}`, `Human role ${roleId.slice(0, 8)}`, `{${grants.join(',')}}`, now, now],
    );
    await tx.execute(
      `insert into users (id, type, email, name, password_hash, status, created_at, updated_at) values (?, 'human', ?, ?, ?, 'active', ?, ?)`,
      [id, email, name, hash, now, now],
    );
    await tx.execute('insert into user_roles (user_id, role_id) values (?, ?)', [id, roleId]);
  });
  const res = await login(app, email, PASSWORD);
  if (res.status !== 200 || !res.token) throw new Error(`seedHuman: login failed ${res.status}`);
  return { userId: id, roleId, email, token: res.token };
}

export async function insertActor(app: TestApp, type: string, name = `Actor ${type}`): Promise<string> {
  const id = randomUUID();
  const now = new Date();
  await app.em().execute('insert into actors (id, name, type, created_at, updated_at) values (?, ?, ?, ?, ?)', [id, name, type, now, now]);
  return id;
}
