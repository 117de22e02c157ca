// The tension commands (SPEC §3): authorize → validate → the shared command path, for any registry entry.
import { idOf } from '../schemas.js';
import type { Result } from '../../domain/errors.js';
import { authorize } from '../authorize.js';
import type { Ctx, Deps } from '../context.js';
import { parseInput } from '../validate.js';
import { executeTensionCommand, notFound, observedCommand } from './command-path.js';
import type { TensionCommandEntry } from './registry.js';
import type { CommandResult } from './tension.inputs.js';

/**
 * Runs one registry command as `ctx`: `id` is the path id (ignored by sense, which makes a new one);
 * `input` is the face's raw input, parsed here so every face answers the same refusals in the same order.
 */
export function runCommand(deps: Deps, ctx: Ctx, entry: TensionCommandEntry, id: string | null, input: unknown): Promise<Result<CommandResult>> {
  // (not `async`: it hands on executeTensionCommand's promise rather than wrapping it in one more)
  return observedCommand(deps, entry.operation, () => {
    const denied = authorize(ctx, entry.operation);
    if (denied) return Promise.resolve(denied);
    const parsed = parseInput(entry.input, input);
    if (!parsed.ok) return Promise.resolve(parsed);
    const value = parsed.value as { expectedVersion?: number };
    const target = entry.creates ? deps.newId() : idOf(id ?? '');
    if (target === null) return Promise.resolve(notFound(id ?? ''));
    return executeTensionCommand(deps, ctx, {
      id: target,
      expectedVersion: value.expectedVersion,
      creates: entry.creates,
      build: entry.command(deps, target, parsed.value),
    });
  });
}
