// `market-service users create-admin --email E [--name N]`: a human holding the system role `admin`.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

import type { CommandRun } from './commands.js';
import { openServiceDatabase } from '../runtime.js';
import { generatePassword, hashPassword } from '../auth/password.js';
import { emailSchema, passwordSchema } from '../application/users/users.js';
import { systemCaller } from '../application/context.js';
import { fieldsOf, recordAudit, userTarget } from '../application/audit/audit.js';
import { nameSchema } from '../application/schemas.js';
import { addUserRoles, emailTaken, insertUser } from '../persistence/users.js';
import { ensureSystemRole } from '../persistence/roles.js';
import { reader } from '../persistence/transaction.js';

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
  const name = nameSchema.safeParse(flags.name ?? 'Administrator');
  if (!email.success || !name.success) {
    console.error('A valid --email is required; --name must be 1–200 characters.');
    return 2;
  }
  const generated = config.adminPassword ? undefined : generatePassword();
  const password = passwordSchema.parse(config.adminPassword ?? generated);
  const hash = await hashPassword(password, config.passwordHashing); // before the transaction: argon2 is slow
  const db = await openServiceDatabase(config, logger);
  try {
    const now = new Date();
    const created = await reader(db.orm).transactional(async (tx) => {
      if (await emailTaken(tx, email.data)) return false;
      // The same system role the first start seeds, in case this runs before it.
      const roleId = await ensureSystemRole(tx, randomUUID(), now);
      const id = randomUUID();
      await insertUser(tx, { id, type: 'human', email: email.data, name: name.data, passwordHash: hash, linkedActorId: null, at: now });
      await addUserRoles(tx, id, [roleId]);
      const ctx = { caller: systemCaller(), via: 'cli' as const, requestId: `cli-${randomUUID()}`, clientAddress: null };
      await recordAudit({ clock: () => now, newId: randomUUID }, tx, ctx, {
        action: 'user.created',
        target: userTarget(id, email.data),
        changes: fieldsOf({ type: 'human', email: email.data, name: name.data, roleIds: [roleId] }),
      });
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
