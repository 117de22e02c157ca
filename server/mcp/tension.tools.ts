// MCP tools over the tension and actor use cases: the same functions REST and GraphQL call.
import { z } from 'zod';
import {
  commandResultOutput, historyPageOutput, historyQuery, lifecycleInput, listTensionsQuery, reassignTensionInput,
  renameTensionInput, rescoreTensionInput, reviseTensionContextInput, senseTensionInput, setTensionLeadInput,
  tensionOutput, tensionPageOutput,
} from '../application/tensions/tension.inputs.js';
import {
  discardTension, dropTension, getTension, getTensionHistory, listTensions, reassignTension, renameTension,
  reopenTension, rescoreTension, resolveTension, reviseTensionContext, reviveTension, senseTension, setTensionLead,
} from '../application/tensions/index.js';
import { actorOutput, actorPageOutput, listActorsQuery } from '../application/actors/actor.inputs.js';
import { getActor, listActors } from '../application/actors/index.js';
import type { Ctx, Deps } from '../application/context.js';
import type { Operation } from '../application/permission-table.js';
import type { Result } from '../domain/errors.js';
import { defineTool, type ToolDef } from './tool.js';

const id = z.uuid().describe('The tension id (a UUID).');
const READ = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;
const CONFLICT_HELP =
  'Pass expectedVersion (the tension.version you last saw) to make the write conditional: if someone else changed the tension, ' +
  'the result is an error with code version_conflict and currentVersion; reload with get_tension, decide again, retry.';

type TensionCommand = (deps: Deps, ctx: Ctx, id: string, input: unknown) => Promise<Result<unknown>>;

/** A command on one tension: its REST body's fields plus `id`. */
function commandTool(opts: {
  name: string;
  title: string;
  description: string;
  operation: Operation;
  shape: z.ZodRawShape;
  run: TensionCommand;
  idempotent: boolean;
  destructive?: boolean;
}): ToolDef {
  return defineTool({
    name: opts.name,
    title: opts.title,
    description: `${opts.description} Returns {tension, event}; event is null when nothing changed (then nothing was written). ${CONFLICT_HELP}`,
    operation: opts.operation,
    input: z.strictObject({ id, ...opts.shape }),
    output: commandResultOutput,
    annotations: {
      readOnlyHint: false,
      destructiveHint: opts.destructive ?? false,
      idempotentHint: opts.idempotent,
      openWorldHint: false,
    },
    run: (deps, ctx, { id: tensionId, ...input }) => opts.run(deps, ctx, tensionId as string, input),
  });
}

/** Lifecycle commands: a transition to the current state is a no-op, so a retry is safe — except discard. */
const lifecycle = (name: string, title: string, description: string, operation: Operation, run: TensionCommand, destructive = false) =>
  commandTool({ name, title, description, operation, shape: lifecycleInput.shape, run, idempotent: !destructive, destructive });

export const TENSION_TOOLS: ToolDef[] = [
  defineTool({
    name: 'list_tensions',
    title: 'List tensions',
    description:
      'Lists tensions, highest score first by default. Filters: state (alive|resolved|stale), actorId, leadUserId, q (case-insensitive ' +
      'text in name and contexts), minScore (1-10). sort: score|updatedAt|createdAt|name, prefix "-" for descending. Pages: limit (1-100, ' +
      'default 20) and cursor (pass back nextCursor; null means the last page).',
    operation: 'tensions.list',
    input: listTensionsQuery,
    output: tensionPageOutput,
    annotations: READ,
    run: (deps, ctx, args) => listTensions(deps, ctx, args),
  }),
  defineTool({
    name: 'get_tension',
    title: 'Get a tension',
    description: 'Returns one tension with its actor, lead and version. Error not_found: no such tension, or it was discarded.',
    operation: 'tensions.get',
    input: z.strictObject({ id }),
    output: tensionOutput,
    annotations: READ,
    run: (deps, ctx, args) => getTension(deps, ctx, args.id as string),
  }),
  defineTool({
    name: 'get_tension_history',
    title: 'Get tension history',
    description:
      'Returns what happened to a tension, newest first: each entry has version, type, occurredAt, who did it (by: kind, userName, via), ' +
      'an English summary and its summaryKey/summaryParams. Readable after discard. Pages with limit (1-100) and cursor.',
    operation: 'tensions.history',
    input: z.strictObject({ id, ...historyQuery.shape }),
    output: historyPageOutput,
    annotations: READ,
    run: (deps, ctx, { id: tensionId, ...query }) => getTensionHistory(deps, ctx, tensionId as string, query),
  }),
  defineTool({
    name: 'sense_tension',
    title: 'Sense a tension',
    description:
      'Records a new tension: a gap between the current state (currentContext) and a desired future (potentialFuture) experienced by an ' +
      'actor (actorId, from list_actors). score 1-10 (default 5), optional leadUserId. The new tension is alive at version 1. ' +
      'Not idempotent: calling it twice records two tensions. Errors: actor_not_found, user_not_found, not_applicable (lead deactivated).',
    operation: 'tensions.sense',
    input: senseTensionInput.omit({ expectedVersion: true }),
    output: commandResultOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: (deps, ctx, args) => senseTension(deps, ctx, args),
  }),
  commandTool({ name: 'rename_tension', title: 'Rename a tension', description: 'Sets the name (1-200 characters).', operation: 'tensions.rename', shape: renameTensionInput.shape, run: renameTension, idempotent: true }),
  commandTool({ name: 'rescore_tension', title: 'Rescore a tension', description: 'Sets the score, an integer 1-10.', operation: 'tensions.rescore', shape: rescoreTensionInput.shape, run: rescoreTension, idempotent: true }),
  commandTool({
    name: 'revise_tension_context',
    title: 'Revise tension context',
    description: 'Changes currentContext and/or potentialFuture (give at least one; null clears it; at most 10000 characters).',
    operation: 'tensions.revise',
    shape: reviseTensionContextInput.shape,
    run: reviseTensionContext,
    idempotent: true,
  }),
  commandTool({
    name: 'set_tension_lead',
    title: 'Set tension lead',
    description: 'Assigns the lead user (leadUserId) or unassigns it (leadUserId: null). Errors: user_not_found; not_applicable when the user is deactivated.',
    operation: 'tensions.lead',
    shape: setTensionLeadInput.shape,
    run: setTensionLead,
    idempotent: true,
  }),
  commandTool({
    name: 'reassign_tension',
    title: 'Reassign a tension',
    description: 'Moves the tension to another actor (actorId). Error actor_not_found.',
    operation: 'tensions.reassign',
    shape: reassignTensionInput.shape,
    run: reassignTension,
    idempotent: true,
  }),
  lifecycle('resolve_tension', 'Resolve a tension', 'Marks an alive tension resolved (safe to retry). Error invalid_transition when it is stale: revive it first.', 'tensions.resolve', resolveTension),
  lifecycle('drop_tension', 'Drop a tension', 'Marks an alive tension stale (dropped). Error invalid_transition when it is resolved: reopen it first.', 'tensions.drop', dropTension),
  lifecycle('reopen_tension', 'Reopen a tension', 'Brings a resolved tension back to alive. Error invalid_transition when it is stale (use revive_tension).', 'tensions.reopen', reopenTension),
  lifecycle('revive_tension', 'Revive a tension', 'Brings a stale tension back to alive. Error invalid_transition when it is resolved (use reopen_tension).', 'tensions.revive', reviveTension),
  lifecycle(
    'discard_tension',
    'Discard a tension',
    'Deletes the tension from every list and read, whatever its state; its history stays readable. Cannot be undone. ' +
      'A second call answers not_found.',
    'tensions.discard',
    discardTension,
    true,
  ),
  defineTool({
    name: 'list_actors',
    title: 'List actors',
    description: 'Lists market actors (organizations, individuals, virtual actors, agents) that tensions belong to. Filters: type, q; pages with limit and cursor.',
    operation: 'actors.list',
    input: listActorsQuery,
    output: actorPageOutput,
    annotations: READ,
    run: (deps, ctx, args) => listActors(deps, ctx, args),
  }),
  defineTool({
    name: 'get_actor',
    title: 'Get an actor',
    description: 'Returns one actor (id, name, type, tensionCount) by id. Error actor_not_found: no such actor.',
    operation: 'actors.get',
    input: z.strictObject({ id: z.uuid().describe('The actor id (a UUID).') }),
    output: actorOutput,
    annotations: READ,
    run: (deps, ctx, args) => getActor(deps, ctx, args.id as string),
  }),
];
