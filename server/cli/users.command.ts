// `market-service users create-admin --email E [--name N]`: a human holding the system role `admin`.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

import type { CommandRun } from './commands.js';
import { openServiceDatabase } from '../runtime.js';
import { generatePassword, hashPassword } from '../auth/password.js';
import { emailSchema, passwordSchema } from '../application/users/users.js';
import { systemCaller } from '../application/context.js';
import { fieldsOf, recordAudit, userTarget } from '../application/audit/audit.js';

const USAGE = 'Usage: market-service users create-admin --email E [--name N]';

function parse(args: string[]): { email?: string; name?: string } | null {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { email: { type: 'string' }, name: { type: 'string' } },
      strict: true,
      allowPositionals: true,
    });
    return positionals.length === 1 && positionals[0] === 'create-admin' ? values : null;
  } catch {
    return null;
  }
}

export const runUsers: CommandRun = async (args, { config, logger }) => {
  const flags = parse(args);
  if (!flags) {
    console.error(USAGE);
    return 2;
  }
  const email = emailSchema.safeParse(flags.email ?? '');
  const name = (flags.name ?? 'Administrator').trim();
  if (!email.success || name.length < 1 || name.length > 200) {
    console.error('A valid --email is required; --name must be 1–200 characters.');
    return 2;
  }
  const generated = config.adminPassword ? undefined : generatePassword();
  const password = passwordSchema.parse(config.adminPassword ?? generated);
  const hash = await hashPassword(password); // before the transaction: argon2 is slow
  const db = await openServiceDatabase(config, logger);
  try {
    const em = db.orm.em.fork();
    const now = new Date();
    const created = await em.transactional(async (tx) => {
      const [taken] = await tx.execute('select 1 from users where email = ?', [email.data]);
      if (taken) return false;
      // The same system role the first start seeds (bootstrap.ts), in case this runs before it. Found by its
      // flag, not its code, so a database whose role was renamed before codes became immutable still works.
      await tx.execute(
        `insert into roles (id, code, name, permissions, system, created_at, updated_at)
         select ?, 'admin', 'Administrator', '{*}', true, ?, ? where not exists (select 1 from roles where system)
         on conflict (code) do nothing`,
        [randomUUID(), now, now],
      );
      const [role] = await tx.execute<{ id: string }[]>('select id from roles where system order by created_at, id limit 1');
      const id = randomUUID();
      await tx.execute(
        `insert into users (id, type, email, name, password_hash, status, created_at, updated_at)
         values (?, 'human', ?, ?, ?, 'active', ?, ?)`,
        [id, email.data, name, hash, now, now],
      );
      await tx.execute('insert into user_roles (user_id, role_id) values (?, ?)', [id, role.id]);
      const ctx = { caller: systemCaller(), via: 'cli' as const, requestId: `cli-${randomUUID()}`, clientAddress: null };
      await recordAudit({ clock: () => now, newId: randomUUID }, tx, ctx, { action: 'user.created', target: userTarget(id, email.data), changes: fieldsOf({ type: 'human', email: email.data, name, roleIds: [role.id] }) });
      return true;
    });
    if (!created) {
      console.error(`A user with the email ${email.data} exists already.`);
      return 1;
    }
    console.log(`Admin ${email.data} created.`);
    if (generated) console.log(`  password: ${generated}\n  Keep it now: it is not shown again.`);
    return 0;
  } finally {
    await db.close();
  }
};
