// Password hashes (SPEC §1: argon2id, at least 19 MiB and 2 iterations): the library's defaults unless the service is
// configured at the contract's floor (`PASSWORD_HASHING=floor`, the test suite's), and a verify follows the cost
// written in the hash, so hashes of either kind keep signing in whichever is configured.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../server/auth/password.js';
import { loadConfig } from '../../../server/config.js';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { login, sessionClient } from '../../support/sessions.js';

const STANDARD = /^\$argon2id\$v=19\$m=65536,t=3,p=4\$/;
const FLOOR = /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/;
const PASSWORD = 'long-enough-password';

describe('the cost of new password hashes', () => {
  it('is the library’s defaults unless configured, in production too; the floor only by name; anything else refuses to start', () => {
    expect(loadConfig({}).passwordHashing).toBe('standard');
    expect(loadConfig({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(32) }).passwordHashing).toBe('standard');
    expect(loadConfig({ PASSWORD_HASHING: 'floor' }).passwordHashing).toBe('floor');
    for (const bad of ['cheap', 'FLOOR', '0', 'none']) expect(() => loadConfig({ PASSWORD_HASHING: bad }), bad).toThrow(/PASSWORD_HASHING/);
  });

  const apps: TestApp[] = [];
  let standard: TestApp;
  let floor: TestApp;
  beforeAll(async () => {
    [standard, floor] = await Promise.all([startTestApp({ passwordHashing: 'standard' }), startTestApp()]);
    apps.push(standard, floor);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  /** A human created over REST by the admin; its stored hash. */
  async function createHuman(app: TestApp, email: string): Promise<string> {
    const admin = sessionClient(app, (await login(app, ADMIN.email, ADMIN.password)).token!);
    const created = await admin.post('/users', { type: 'human', email, name: 'Hashed', password: PASSWORD });
    expect(created.status).toBe(201);
    const [row] = await app.em().execute<{ password_hash: string }[]>('select password_hash from users where id = ?', [created.body.id]);
    return row.password_hash;
  }

  it('standard: 64 MiB, 3 passes, 4 lanes (above the floor), and the user signs in', async () => {
    expect(await createHuman(standard, 'standard@x.example')).toMatch(STANDARD);
    expect((await login(standard, 'standard@x.example', PASSWORD)).status).toBe(200);
    expect((await login(standard, 'standard@x.example', `${PASSWORD}!`)).status).toBe(401);
  });

  it('floor: exactly SPEC’s minimum, 19 MiB and 2 passes, and the user signs in', async () => {
    expect(await createHuman(floor, 'floor@x.example')).toMatch(FLOOR);
    expect((await login(floor, 'floor@x.example', PASSWORD)).status).toBe(200);
    expect((await login(floor, 'floor@x.example', `${PASSWORD}!`)).status).toBe(401);
  });

  it('a hash of the other cost still signs in: a verify reads the cost from the hash', async () => {
    const hash = await hashPassword(PASSWORD, 'standard');
    expect(hash).toMatch(STANDARD);
    await createHuman(floor, 'moved@x.example');
    await floor.em().execute('update users set password_hash = ? where email = ?', [hash, 'moved@x.example']);
    expect((await login(floor, 'moved@x.example', PASSWORD)).status).toBe(200);
    expect((await login(floor, 'moved@x.example', `${PASSWORD}!`)).status).toBe(401);
  });
});
