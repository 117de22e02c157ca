// A small REST client for setup: admin login (cookie + CSRF header), then bearer calls.
import { ADMIN } from './service.js';

export class Api {
  constructor(
    readonly url: string,
    readonly auth: Record<string, string> = {},
  ) {}

  static async loginAdmin(url: string): Promise<Api> {
    const res = await fetch(`${url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    if (!res.ok) throw new Error(`admin login failed: ${res.status} ${await res.text()}`);
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    return new Api(url, { cookie, 'x-csrf-protection': '1' });
  }

  withKey(key: string): Api {
    return new Api(this.url, { authorization: `Bearer ${key}` });
  }

  async call<T = any>(method: string, path: string, body?: unknown, expect = [200, 201]): Promise<T> {
    const res = await fetch(`${this.url}/api/v1${path}`, {
      method,
      headers: { ...this.auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (!expect.includes(res.status)) throw new Error(`${method} ${path} → ${res.status}: ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : (undefined as T);
  }
}

/** Runs `count` async jobs, `concurrency` at a time. */
export async function pool(count: number, concurrency: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await job(next++);
    }),
  );
}
