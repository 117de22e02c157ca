// Two-factor for password logins (SPEC §16): enrolment, the two-step login on REST and GraphQL, each code
// once, recovery codes once each, the throttle, REQUIRE_MFA_FOR_ADMINS, an admin's reset under the
// escalation rule, bad input, and export/import keeping enrolments. Codes are computed by otplib here,
// at the service's clock, which the tests move to reach the next 30-second step.
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IsolationLevel } from '@mikro-orm/core';
import { ADMIN, startTestApp, type TestApp } from '../../support/app.js';
import { client, seedUserWithKey } from '../../support/clients.js';
import { login, PASSWORD, seedHuman, sessionClient } from '../../support/sessions.js';
import { createTestDatabase } from '../../support/database.js';
import { migrationStatus } from '../../../server/persistence/database.js';
import { exportRows, importRows, type DumpText } from '../../../server/persistence/dump.js';
import { unreadableEnrolments } from '../../../server/persistence/second-factor.js';

/** The service's clock, moved by the tests (TOTP steps, token expiry); starts at the start of a step. */
let offsetMs = 0;
const base = Math.floor(Date.now() / 30_000) * 30_000 + 1_000;
const clock = () => new Date(base + offsetMs);
const step = (n = 1) => {
  offsetMs += n * 30_000;
};
const codeAt = (secret: string, at = clock()) => generate({ secret, epoch: Math.floor(at.getTime() / 1000) });

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({}, { clock });
});
afterAll(async () => {
  await app?.close();
});

async function loginMfa(target: TestApp, body: unknown) {
  const res = await fetch(`${target.url}/api/v1/auth/login/mfa`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const setCookie = res.headers.get('set-cookie');
  const text = await res.text();
  return {
    status: res.status,
    body: text ? JSON.parse(text) : null,
    token: setCookie ? (/session=([^;]*)/.exec(setCookie)?.[1] ?? null) : null,
    headers: res.headers,
  };
}

/** A human with `grants`, enrolled through the REST routes; its secret and recovery codes. */
async function enrolledHuman(target: TestApp, grants: string[]) {
  const human = await seedHuman(target, grants);
  const me = sessionClient(target, human.token);
  const started = await me.post('/me/mfa/totp');
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const confirmed = await me.post('/me/mfa/totp/confirm', { code: await codeAt(started.body.secret) });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  step(); // the confirming code's step is spent
  return { ...human, secret: started.body.secret as string, recoveryCodes: confirmed.body.recoveryCodes as string[] };
}

async function auditActions(userId: string): Promise<string[]> {
  const rows = await app.em().execute<{ action: string }[]>('select action from audit_log where target_id = ? order by at, id', [userId]);
  return rows.map((r) => r.action);
}

describe('enrolment', () => {
  it('shows the secret as text, otpauth URI and QR code; stores it encrypted; a wrong code is refused; the right one answers ten recovery codes', async () => {
    const human = await seedHuman(app, ['tensions:read']);
    const me = sessionClient(app, human.token);
    expect((await me.get('/me/mfa')).body).toMatchObject({ enrolled: false, pending: false, recoveryCodesLeft: 0, required: false });
    const started = await me.post('/me/mfa/totp');
    expect(started.status).toBe(201);
    const { secret, otpauthUri, qrCodeSvg } = started.body;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\//);
    expect(new URL(otpauthUri).searchParams.get('secret')).toBe(secret);
    expect(qrCodeSvg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    const [row] = await app.em().execute('select secret_ciphertext, confirmed_at from user_mfa where user_id = ?', [human.userId]);
    expect(row.confirmed_at).toBeNull();
    expect(row.secret_ciphertext).not.toContain(secret);
    expect((await me.get('/me/mfa')).body).toMatchObject({ enrolled: false, pending: true });

    // A code two steps away is outside ±1 step.
    const far = await me.post('/me/mfa/totp/confirm', { code: await codeAt(secret, new Date(clock().getTime() + 60_000)) });
    expect(far.status).toBe(400);
    expect(far.body.errors).toEqual([expect.objectContaining({ path: 'code', code: 'incorrect' })]);
    // The previous step's code is within ±1 step.
    const confirmed = await me.post('/me/mfa/totp/confirm', { code: await codeAt(secret, new Date(clock().getTime() - 30_000)) });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(confirmed.body.recoveryCodes).toHaveLength(10);
    expect(new Set(confirmed.body.recoveryCodes).size).toBe(10);
    for (const c of confirmed.body.recoveryCodes) expect(c).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);
    const hashes = await app.em().execute('select code_hash from user_recovery_codes where user_id = ?', [human.userId]);
    expect(hashes).toHaveLength(10);
    for (const { code_hash } of hashes) for (const c of confirmed.body.recoveryCodes) expect(code_hash).not.toContain(c.replace('-', ''));
    expect((await me.get('/me/mfa')).body).toMatchObject({ enrolled: true, pending: false, recoveryCodesLeft: 10 });
    // Enrolled: a second start is refused, the secret stays.
    expect((await me.post('/me/mfa/totp')).body.code).toBe('invalid_transition');
    expect(await auditActions(human.userId)).toEqual(expect.arrayContaining(['auth.mfa_failed', 'user.mfa_enrolled']));
    step();
  });

  it('needs a password session: an API key is 403 session_required', async () => {
    const agent = await seedUserWithKey(app, { grants: ['*'] });
    const human = await seedUserWithKey(app, { type: 'human', grants: ['tensions:read'] });
    for (const key of [agent.key, human.key]) {
      for (const [method, path] of [
        ['GET', '/me/mfa'],
        ['POST', '/me/mfa/totp'],
      ] as const) {
        const res = method === 'GET' ? await client(app, key).get(path) : await client(app, key).post(path);
        expect([path, res.status, res.body.code]).toEqual([path, 403, 'session_required']);
      }
    }
  });

  it('refuses malformed input with 400 and a plain sentence, never 5xx', async () => {
    const human = await seedHuman(app, []);
    const me = sessionClient(app, human.token);
    expect((await me.post('/me/mfa/totp/confirm', { code: '123456' })).body.code).toBe('invalid_transition'); // nothing started
    await me.post('/me/mfa/totp');
    for (const body of [{}, { code: '' }, { code: '12345' }, { code: '1234567' }, { code: 'abcdef' }, { code: 123456 }, { code: '123456', extra: 1 }, []]) {
      const res = await me.post('/me/mfa/totp/confirm', body);
      expect([JSON.stringify(body), res.status, res.body.code]).toEqual([JSON.stringify(body), 400, 'validation_failed']);
      expect(res.body.detail).not.toMatch(/[<>{}]|code\./);
    }
    for (const body of [
      {},
      { mfaToken: '', code: '123456' },
      { mfaToken: 'x'.repeat(201), code: '123456' },
      { mfaToken: 'x', code: 'y'.repeat(65) },
      { mfaToken: 'x', code: '123456', more: true },
    ]) {
      const res = await loginMfa(app, body);
      expect([JSON.stringify(body).slice(0, 40), res.status, res.body.code]).toEqual([JSON.stringify(body).slice(0, 40), 400, 'validation_failed']);
    }
    // A token the service never issued is just a failed sign-in.
    expect((await loginMfa(app, { mfaToken: 'not-a-token', code: '123456' })).body.code).toBe('invalid_credentials');
  });
});

describe('two-step login', () => {
  it('REST: the password answers { mfaRequired, mfaToken } without a cookie; a code completes it; the code and the token work once', async () => {
    const human = await enrolledHuman(app, ['tensions:read']);
    const first = await login(app, human.email, PASSWORD);
    expect(first.status).toBe(200);
    expect(first.setCookie).toBeNull();
    expect(Object.keys(first.body).sort()).toEqual(['mfaRequired', 'mfaToken']);
    expect(first.body.mfaRequired).toBe(true);
    const code = await codeAt(human.secret);
    const done = await loginMfa(app, { mfaToken: first.body.mfaToken, code });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ id: human.userId, email: human.email });
    expect(done.token).toBeTruthy();
    expect((await sessionClient(app, done.token!).get('/auth/me')).body.user.id).toBe(human.userId);
    // The token is spent; the same code with a new token is a replay.
    expect((await loginMfa(app, { mfaToken: first.body.mfaToken, code })).status).toBe(401);
    const again = await login(app, human.email, PASSWORD);
    const replay = await loginMfa(app, { mfaToken: again.body.mfaToken, code });
    expect([replay.status, replay.body.code, replay.token]).toEqual([401, 'invalid_credentials', null]);
    // The next step's code works with the same (still unspent) token.
    step();
    expect((await loginMfa(app, { mfaToken: again.body.mfaToken, code: await codeAt(human.secret) })).status).toBe(200);
    const [entry] = await app
      .em()
      .execute("select changes from audit_log where target_id = ? and action = 'auth.login' order by at desc limit 1", [human.userId]);
    expect(entry.changes).toEqual({ secondFactor: { from: null, to: 'totp' } });
    step();
  });

  it('of simultaneous sign-ins with one code, exactly one gets in', async () => {
    const human = await enrolledHuman(app, ['tensions:read']);
    const tokens: string[] = [];
    for (let i = 0; i < 4; i++) tokens.push((await login(app, human.email, PASSWORD)).body.mfaToken);
    const code = await codeAt(human.secret);
    const answers = await Promise.all(tokens.map((mfaToken) => loginMfa(app, { mfaToken, code })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401, 401, 401]);
    step();
  });

  it('GraphQL: login answers MFA_REQUIRED with the mfaToken; loginMfa completes it and sets the cookie', async () => {
    const human = await enrolledHuman(app, ['tensions:read']);
    const anon = client(app);
    const first = await anon.gql('mutation($i: LoginInput!) { login(input: $i) { user { id } } }', { i: { email: human.email, password: PASSWORD } });
    expect(first.headers.get('set-cookie')).toBeNull();
    const ext = first.body.errors?.[0]?.extensions;
    expect(ext).toMatchObject({ code: 'MFA_REQUIRED', mfaRequired: true });
    expect(typeof ext.mfaToken).toBe('string');
    const wrong = await anon.gql('mutation($i: LoginMfaInput!) { loginMfa(input: $i) { user { id } } }', {
      i: { mfaToken: ext.mfaToken, code: '000000' === (await codeAt(human.secret)) ? '111111' : '000000' },
    });
    expect(wrong.body.errors?.[0]?.extensions?.code).toBe('INVALID_CREDENTIALS');
    const done = await anon.gql('mutation($i: LoginMfaInput!) { loginMfa(input: $i) { user { id } authenticatedBy } }', {
      i: { mfaToken: ext.mfaToken, code: await codeAt(human.secret) },
    });
    expect(done.body.errors).toBeUndefined();
    expect(done.body.data.loginMfa).toEqual({ user: { id: human.userId }, authenticatedBy: 'session' });
    expect(done.headers.get('set-cookie')).toMatch(/^session=/);
    step();
  });

  it('a recovery code signs in once; each is single-use; the use is audited', async () => {
    const human = await enrolledHuman(app, ['tensions:read']);
    const [rc1, rc2] = human.recoveryCodes;
    const t1 = (await login(app, human.email, PASSWORD)).body.mfaToken;
    const ok1 = await loginMfa(app, { mfaToken: t1, code: rc1.toUpperCase().replace('-', ' ') });
    expect(ok1.status, JSON.stringify(ok1.body)).toBe(200);
    const t2 = (await login(app, human.email, PASSWORD)).body.mfaToken;
    expect((await loginMfa(app, { mfaToken: t2, code: rc1 })).status).toBe(401);
    expect((await loginMfa(app, { mfaToken: t2, code: rc2 })).status).toBe(200);
    expect((await sessionClient(app, ok1.token!).get('/me/mfa')).body.recoveryCodesLeft).toBe(8);
    expect((await auditActions(human.userId)).filter((a) => a === 'auth.recovery_code_used')).toHaveLength(2);
  });

  it('an mfaToken expires after 5 minutes and takes at most 5 wrong codes', async () => {
    const human = await enrolledHuman(app, ['tensions:read']);
    const t = (await login(app, human.email, PASSWORD)).body.mfaToken;
    offsetMs += 5 * 60_000;
    expect((await loginMfa(app, { mfaToken: t, code: await codeAt(human.secret) })).status).toBe(401);
    const u = (await login(app, human.email, PASSWORD)).body.mfaToken;
    const right = await codeAt(human.secret);
    const wrongCode = right === '999999' ? '999998' : '999999';
    for (let i = 0; i < 5; i++) expect((await loginMfa(app, { mfaToken: u, code: wrongCode })).status).toBe(401);
    expect((await loginMfa(app, { mfaToken: u, code: right })).status).toBe(401);
    // Counted as failed sign-ins: the email's throttle is not reset by the password step.
    offsetMs += 16 * 60_000;
    step();
  });

  it('wrong codes are throttled with the password attempts: the 11th attempt of the email is 429 with Retry-After, without a check', async () => {
    const human = await enrolledHuman(app, ['tensions:read']);
    const t = (await login(app, human.email, PASSWORD)).body.mfaToken; // attempt 1 (kept until a code succeeds)
    const right = await codeAt(human.secret);
    const wrongCode = right === '999999' ? '999998' : '999999';
    for (let i = 0; i < 4; i++) expect((await loginMfa(app, { mfaToken: t, code: wrongCode })).status).toBe(401); // 2..5
    for (let i = 0; i < 2; i++) {
      const u = (await login(app, human.email, PASSWORD)).body.mfaToken; // 6, 8
      expect((await loginMfa(app, { mfaToken: u, code: wrongCode })).status).toBe(401); // 7, 9
    }
    const last = (await login(app, human.email, PASSWORD)).body.mfaToken; // 10
    const throttled = await loginMfa(app, { mfaToken: last, code: right });
    expect(throttled.status).toBe(429);
    expect(throttled.body.code).toBe('rate_limited');
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    // The right code was not spent by the throttled attempt: after the window it signs in.
    offsetMs += 15 * 60_000 + 1_000;
    const fresh = (await login(app, human.email, PASSWORD)).body.mfaToken;
    expect((await loginMfa(app, { mfaToken: fresh, code: await codeAt(human.secret) })).status).toBe(200);
    step();
  });
});

describe('removal and an administrator’s reset', () => {
  it('I remove my own second factor with a current code; a wrong code is refused and leaves it', async () => {
    const human = await enrolledHuman(app, ['tensions:read']);
    const me = sessionClient(app, human.token);
    const right = await codeAt(human.secret);
    expect((await me.post('/me/mfa/disable', { code: right === '123123' ? '321321' : '123123' })).status).toBe(400);
    expect((await me.post('/me/mfa/disable', { code: right })).status).toBe(204);
    expect((await me.get('/me/mfa')).body.enrolled).toBe(false);
    expect((await login(app, human.email, PASSWORD)).token).toBeTruthy();
    expect(await auditActions(human.userId)).toContain('user.mfa_removed');
    step();
  });

  it('REST and GraphQL: a target holding more than the caller → escalation_denied, the enrolment stays; a peer → reset, audited', async () => {
    const caller = await seedUserWithKey(app, { grants: ['users:read', 'users:write'] });
    for (const face of ['rest', 'graphql'] as const) {
      const stronger = await enrolledHuman(app, ['*']);
      const peer = await enrolledHuman(app, ['users:read']);
      const reset = async (id: string) =>
        face === 'rest'
          ? client(app, caller.key).post(`/users/${id}/mfa/reset`)
          : client(app, caller.key).gql('mutation($id: ID!) { resetUserMfa(id: $id) }', { id });
      const denied = await reset(stronger.userId);
      if (face === 'rest') expect(denied.body).toMatchObject({ status: 403, code: 'escalation_denied', missingPermissions: ['*'] });
      else expect(denied.body.errors[0].extensions).toMatchObject({ code: 'ESCALATION_DENIED', missingPermissions: ['*'] });
      expect((await app.em().execute('select confirmed_at from user_mfa where user_id = ?', [stronger.userId]))[0].confirmed_at).not.toBeNull();
      const done = await reset(peer.userId);
      if (face === 'rest') expect(done.status).toBe(204);
      else expect(done.body).toEqual({ data: { resetUserMfa: true } });
      expect(await app.em().execute('select 1 from user_mfa where user_id = ?', [peer.userId])).toEqual([]);
      expect(await app.em().execute('select 1 from user_recovery_codes where user_id = ?', [peer.userId])).toEqual([]);
      expect(await auditActions(peer.userId)).toContain('user.mfa_reset');
      // The user signs in with the password alone and can enrol again.
      expect((await login(app, peer.email, PASSWORD)).token).toBeTruthy();
    }
    const agent = await seedUserWithKey(app, { grants: [] });
    expect((await client(app, caller.key).post(`/users/${agent.userId}/mfa/reset`)).body.code).toBe('not_applicable');
    // Not one's own, even for a holder of *: that takes a code (POST /me/mfa/disable).
    const admin = await enrolledHuman(app, ['*']);
    const own = await sessionClient(app, admin.token).post(`/users/${admin.userId}/mfa/reset`);
    expect([own.status, own.body.code]).toEqual([422, 'not_applicable']);
    expect(await app.em().execute('select 1 from user_mfa where user_id = ?', [admin.userId])).toHaveLength(1);
    expect((await client(app, caller.key).post('/users/not-a-uuid/mfa/reset')).status).toBe(404);
  }, 120_000); // five users enrolled: their argon2 logins add up on a busy machine
});

describe('REQUIRE_MFA_FOR_ADMINS=true', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await startTestApp({ requireMfaForAdmins: true }, { clock });
  });
  afterAll(async () => {
    await strict?.close();
  });

  it('a holder of * may do nothing but enrol (REST and GraphQL); once enrolled, everything; others are not held back', async () => {
    const admin = sessionClient(strict, (await login(strict, ADMIN.email, ADMIN.password)).token!);
    const refused = await admin.get('/users');
    expect([refused.status, refused.body.code]).toEqual([403, 'mfa_enrolment_required']);
    expect(refused.body.detail).toMatch(/second factor/);
    expect((await admin.post('/me/api-keys', { name: 'escape hatch' })).body.code).toBe('mfa_enrolment_required');
    expect((await admin.gql('{ users { data { id } } }')).body.errors[0].extensions.code).toBe('MFA_ENROLMENT_REQUIRED');
    expect((await admin.get('/auth/me')).status).toBe(200);
    expect((await admin.get('/me/mfa')).body).toMatchObject({ enrolled: false, required: true });

    const operator = await seedHuman(strict, ['users:read']);
    expect((await sessionClient(strict, operator.token).get('/users')).status).toBe(200);
    expect((await sessionClient(strict, operator.token).get('/me/mfa')).body.required).toBe(false);

    const { secret } = (await admin.post('/me/mfa/totp')).body;
    expect((await admin.post('/me/mfa/totp/confirm', { code: await codeAt(secret) })).status).toBe(200);
    expect((await admin.get('/users')).status).toBe(200);
    expect((await admin.gql('{ users { data { id } } }')).body.errors).toBeUndefined();
    step();
  });

  it('switched off (the default), the same admin without a second factor is not held back', async () => {
    const admin = sessionClient(app, (await login(app, ADMIN.email, ADMIN.password)).token!);
    expect((await admin.get('/users')).status).toBe(200);
  });
});

describe('export and import', () => {
  it('keeps enrolments working where the server secret is the same; the dump holds no secret in plain text', async () => {
    const human = await enrolledHuman(app, ['tensions:read']);
    const texts: string[] = [];
    const { applied } = await migrationStatus(app.db.orm);
    await app.db.orm.em.fork().transactional(
      async (tx) => {
        for await (const { text } of exportRows(tx, applied, new Date())) texts.push(text);
      },
      { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
    );
    const dump = texts.join('\n');
    expect(dump).toContain('"table":"user_mfa"');
    expect(dump).not.toContain(human.secret);
    for (const c of human.recoveryCodes) expect(dump).not.toContain(c.replace('-', ''));

    const db = await createTestDatabase();
    async function* lines(): AsyncGenerator<DumpText> {
      let n = 0;
      for (const text of texts) yield { n: ++n, text };
    }
    await db.orm.em.fork().transactional((tx) => importRows(tx, lines(), { migrations: applied }));
    const moved = await startTestApp({}, { clock }, db);
    try {
      expect(await unreadableEnrolments(moved.em(), app.deps.sessionSecret)).toBe(0);
      expect(await unreadableEnrolments(moved.em(), 'another-server-secret-that-is-long-enough-0')).toBeGreaterThan(0);
      const t = (await login(moved, human.email, PASSWORD)).body.mfaToken;
      expect(typeof t).toBe('string');
      expect((await loginMfa(moved, { mfaToken: t, code: await codeAt(human.secret) })).status).toBe(200);
      const u = (await login(moved, human.email, PASSWORD)).body.mfaToken;
      expect((await loginMfa(moved, { mfaToken: u, code: human.recoveryCodes[0] })).status).toBe(200);
    } finally {
      await moved.close();
    }
  }, 120_000);
});
