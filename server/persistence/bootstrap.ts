// First start on an empty database: the system role `admin` (`*`) and one human admin. Never again after.

import type { MikroORM } from '@mikro-orm/postgresql';
import { generatePassword, hashPassword } from '../auth/password.js';
import type { PasswordHashing } from '../config.js';
import { insertAuditEntry } from './audit.js';
import type { AuditAction } from '../application/audit/audit.js';

export interface BootstrapResult {
  adminCreated: boolean;
  email?: string;
  /** only when generated: printed once by the caller */
  generatedPassword?: string;
}

const BOOTSTRAP_LOCK = 7_301_001;

export async function bootstrap(
  orm: MikroORM,
  opts: {
    adminEmail?: string;
    adminPassword?: string;
    /** instead of `adminPassword`: its hash (`hashPassword`), made once for many bootstraps (the test suite's) */
    adminPasswordHash?: string;
    /** the cost of the admin's hash (`Config.passwordHashing`) */
    passwordHashing: PasswordHashing;
    newId: () => string;
    clock: () => Date;
  },
): Promise<BootstrapResult> {
  const em = orm.em.fork();
  const [{ n }] = await em.execute('select count(*)::int as n from users');
  const generatedPassword = n === 0 && !opts.adminPassword && !opts.adminPasswordHash ? generatePassword() : undefined;
  // Hash before the transaction: never hold one across slow work.
  const hash = n === 0 ? (opts.adminPasswordHash ?? (await hashPassword(opts.adminPassword ?? generatedPassword!, opts.passwordHashing))) : undefined;
  const email = (opts.adminEmail ?? 'admin@example.com').toLowerCase();
  const now = opts.clock();

  return em.transactional(async (tx) => {
    await tx.execute('select pg_advisory_xact_lock(?)', [BOOTSTRAP_LOCK]);
    await tx.execute(
      `insert into roles (id, code, name, permissions, system, created_at, updated_at)
       values (?, 'admin', 'Administrator', '{*}', true, ?, ?) on conflict (code) do nothing`,
      [opts.newId(), now, now],
    );
    const [{ n: users }] = await tx.execute('select count(*)::int as n from users');
    if (users > 0 || !hash) return { adminCreated: false };
    const userId = opts.newId();
    await tx.execute(
      `insert into users (id, type, email, name, password_hash, status, created_at, updated_at)
       values (?, 'human', ?, 'Administrator', ?, 'active', ?, ?)`,
      [userId, email, hash, now, now],
    );
    const [role] = await tx.execute<{ id: string }[]>(
      `insert into user_roles (user_id, role_id) select ?, id from roles where code = 'admin' returning role_id as id`,
      [userId],
    );
    // The first admin is accounted for like any other user (SPEC §11), by the system at start-up.
    await insertAuditEntry(tx, {
      id: opts.newId(),
      at: now,
      action: 'user.created' satisfies AuditAction, // one of the listed actions (each has its i18n: test/unit/i18n.unit.test.ts)
      by: { kind: 'system', userId: null, userName: 'system', apiKeyId: null, apiKeyName: null, via: 'cli' },
      target: { type: 'user', id: userId, label: email },
      changes: {
        type: { from: null, to: 'human' },
        email: { from: null, to: email },
        name: { from: null, to: 'Administrator' },
        roleIds: { from: null, to: role ? [role.id] : [] },
      },
      requestId: null,
      clientAddress: null,
    });
    return { adminCreated: true, email, ...(generatedPassword ? { generatedPassword } : {}) };
  });
}
