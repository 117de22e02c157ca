// The tension commands (SPEC §3): authorize → validate → the shared command path.
import { UUID_RE } from '../../domain/ids.js';
import type { z } from 'zod';
import { ok, type Result } from '../../domain/errors.js';
import type { TensionCommand } from '../../domain/tension.types.js';
import { authorize } from '../authorize.js';
import type { Ctx, Deps } from '../context.js';
import type { Operation } from '../permission-table.js';
import { parseInput } from '../validate.js';
import { executeTensionCommand, lookupActor, lookupLead, notFound, observedCommand, type BuildCommand } from './command-path.js';
import {
  lifecycleInput,
  reassignTensionInput,
  renameTensionInput,
  rescoreTensionInput,
  reviseTensionContextInput,
  senseTensionInput,
  setTensionLeadInput,
  type CommandResult,
} from './tension.inputs.js';


async function command<S extends z.ZodType<{ expectedVersion?: number | undefined }>>(
  deps: Deps,
  ctx: Ctx,
  op: Operation,
  id: string,
  schema: S,
  input: unknown,
  build: (value: z.output<S>) => BuildCommand,
): Promise<Result<CommandResult>> {
  return observedCommand(deps, op, async () => {
    const denied = authorize(ctx, op);
    if (denied) return denied;
    const parsed = parseInput(schema, input);
    if (!parsed.ok) return parsed;
    if (!UUID_RE.test(id)) return notFound(id);
    return executeTensionCommand(deps, ctx, { id, expectedVersion: parsed.value.expectedVersion, build: build(parsed.value) });
  });
}

const simple =
  (deps: Deps, id: string, make: (at: Date) => TensionCommand): BuildCommand =>
  async () =>
    ok(make(deps.clock()));

export async function senseTension(deps: Deps, ctx: Ctx, input: unknown): Promise<Result<CommandResult>> {
  return observedCommand(deps, 'tensions.sense', async () => {
    const denied = authorize(ctx, 'tensions.sense');
    if (denied) return denied;
    const parsed = parseInput(senseTensionInput, input);
    if (!parsed.ok) return parsed;
    const v = parsed.value;
    const id = deps.newId();
    return executeTensionCommand(deps, ctx, {
      id,
      expectedVersion: v.expectedVersion,
      creates: true,
      build: async (tx) => {
        const actor = await lookupActor(tx, v.actorId);
        if (!actor.ok) return actor;
        const lead = v.leadUserId ? await lookupLead(tx, v.leadUserId) : null;
        if (lead && !lead.ok) return lead;
        return ok({
          type: 'SenseTension',
          id,
          at: deps.clock(),
          name: v.name,
          currentContext: v.currentContext ?? null,
          potentialFuture: v.potentialFuture ?? null,
          score: v.score ?? 5,
          actorId: actor.value.id,
          actorName: actor.value.name,
          leadUserId: lead ? lead.value.id : null,
          leadName: lead ? lead.value.name : null,
        });
      },
    });
  });
}

export function renameTension(deps: Deps, ctx: Ctx, id: string, input: unknown) {
  return command(deps, ctx, 'tensions.rename', id, renameTensionInput, input, (v) =>
    simple(deps, id, (at) => ({ type: 'RenameTension', id, at, name: v.name })),
  );
}

export function rescoreTension(deps: Deps, ctx: Ctx, id: string, input: unknown) {
  return command(deps, ctx, 'tensions.rescore', id, rescoreTensionInput, input, (v) =>
    simple(deps, id, (at) => ({ type: 'RescoreTension', id, at, score: v.score })),
  );
}

export function reviseTensionContext(deps: Deps, ctx: Ctx, id: string, input: unknown) {
  return command(deps, ctx, 'tensions.revise', id, reviseTensionContextInput, input, (v) =>
    simple(deps, id, (at) => ({
      type: 'ReviseTensionContext',
      id,
      at,
      ...(v.currentContext !== undefined ? { currentContext: v.currentContext } : {}),
      ...(v.potentialFuture !== undefined ? { potentialFuture: v.potentialFuture } : {}),
    })),
  );
}

export function setTensionLead(deps: Deps, ctx: Ctx, id: string, input: unknown) {
  return command(deps, ctx, 'tensions.lead', id, setTensionLeadInput, input, (v) => async (tx) => {
    const lead = v.leadUserId === null ? null : await lookupLead(tx, v.leadUserId);
    if (lead && !lead.ok) return lead;
    return ok({ type: 'AssignTensionLead', id, at: deps.clock(), leadUserId: lead ? lead.value.id : null, leadName: lead ? lead.value.name : null });
  });
}

export function reassignTension(deps: Deps, ctx: Ctx, id: string, input: unknown) {
  return command(deps, ctx, 'tensions.reassign', id, reassignTensionInput, input, (v) => async (tx, row) => {
    const actor = await lookupActor(tx, v.actorId);
    if (!actor.ok) return actor;
    return ok({
      type: 'ReassignTension',
      id,
      at: deps.clock(),
      actorId: actor.value.id,
      actorName: actor.value.name,
      previousActorName: row!.actor_name,
    });
  });
}

const lifecycle =
  (op: Operation, type: 'ResolveTension' | 'DropTension' | 'ReopenTension' | 'ReviveTension' | 'DiscardTension') =>
  (deps: Deps, ctx: Ctx, id: string, input?: unknown) =>
    command(deps, ctx, op, id, lifecycleInput, input, () => simple(deps, id, (at) => ({ type, id, at })));

export const resolveTension = lifecycle('tensions.resolve', 'ResolveTension');
export const dropTension = lifecycle('tensions.drop', 'DropTension');
export const reopenTension = lifecycle('tensions.reopen', 'ReopenTension');
export const reviveTension = lifecycle('tensions.revive', 'ReviveTension');
export const discardTension = lifecycle('tensions.discard', 'DiscardTension');
