// `market-service projections rebuild [--dry-run]`: rebuilds the tensions projection from its streams.
import { parseArgs } from 'node:util';
import { systemCaller } from '../application/context.js';
import { rebuildTensionProjection } from '../application/tensions/index.js';
import { makeDeps, openServiceDatabase } from '../runtime.js';
import type { CommandRun } from './commands.js';

function parse(args: string[]): { dryRun: boolean } | null {
  try {
    const { values, positionals } = parseArgs({ args, options: { 'dry-run': { type: 'boolean' } }, strict: true, allowPositionals: true });
    return positionals.length === 1 && positionals[0] === 'rebuild' ? { dryRun: values['dry-run'] ?? false } : null;
  } catch {
    return null;
  }
}

export const runProjections: CommandRun = async (args, { config, logger }) => {
  const parsed = parse(args);
  if (!parsed) {
    console.error('Usage: market-service projections rebuild [--dry-run]');
    return 2;
  }
  const db = await openServiceDatabase(config, logger);
  try {
    // The rebuild never touches sessions, so it needs no session secret.
    const deps = makeDeps(config, logger, db, '');
    const ctx = { caller: systemCaller(), via: 'cli' as const, requestId: `cli-${deps.newId()}` };
    const result = await rebuildTensionProjection(
      deps,
      ctx,
      { dryRun: parsed.dryRun },
      {
        onProgress: ({ streams, events }) => process.stderr.write(`\rreplayed ${events} events of ${streams} streams`),
      },
    );
    process.stderr.write('\n');
    if (!result.ok) {
      console.error(`${result.code}: ${result.detail}`);
      return 1;
    }
    console.log(JSON.stringify(result.value, null, 2));
    return 0;
  } finally {
    await db.close();
  }
};
