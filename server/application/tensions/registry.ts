// The tension command registry: one entry per command, and every face generated from it — the REST
// routes and their OpenAPI operations (server/rest/tensions.*), the GraphQL mutations and input types
// (schema/tensions/tension.mutations.ts), the MCP tools (server/mcp/tension.tools.ts) and the test
// surfaces (test/support/operations.ts). Its permission is its row of the permission table, which this file
// imports by key (the table is a leaf). A new command is a decider case, its tests, one entry here, its row
// in server/application/permission-table.ts and its i18n strings.
import type { z } from 'zod';
import { ok, type ErrorCode } from '../../domain/errors.js';
import { allowedCommands } from '../../domain/tension.decide.js';
import type { Operation } from '../permission-table.js';
import type { TensionCommand } from '../../domain/tension.types.js';
import type { Deps } from '../context.js';
import { fromInput, lookupActor, lookupLead, type BuildCommand } from './command-path.js';
import {
  lifecycleInput,
  reassignTensionInput,
  renameTensionInput,
  rescoreTensionInput,
  reviseTensionContextInput,
  senseTensionInput,
  setTensionLeadInput,
  type TensionView,
} from './tension.inputs.js';

/** The permission-table rows of the tensions area. */
type TensionOperation = Extract<Operation, `tensions.${string}`>;

export interface TensionCommandEntry<S extends z.ZodType = z.ZodType, O extends TensionOperation = TensionCommandOperation> {
  /** the permission-table key (its row says the permission), the OpenAPI operationId and the metric/span name (`tensions.rescore`) */
  operation: O;
  /** sense creates the tension (no id in the path); every other command acts on an existing one */
  creates: boolean;
  rest: {
    method: 'post' | 'delete';
    /** Express-style, under /api/v1 */
    path: string;
    status: 200 | 201 | 204;
    summary: string;
    /** the OpenAPI operation's description: what it does and what it answers */
    description: string;
    /** body: a JSON body (optional when every field is); query: `?expectedVersion=N` (DELETE) */
    input: 'body' | 'query';
  };
  /** the strict input (REST body / query, GraphQL `input`, MCP arguments without `id`) */
  input: S;
  /** refusals this command can answer beyond unauthenticated/forbidden/validation_failed/not_found */
  errors: ErrorCode[];
  /** the decider command, given the new or path id and the parsed input */
  command(deps: Deps, id: string, input: z.output<S>): BuildCommand;
  /** a well-shaped input, for the docs and the authorization sweep */
  example: Record<string, unknown>;
  graphql: { field: string; inputType: string; description: string };
  mcp: {
    name: string;
    title: string;
    description: string;
    annotations: { destructiveHint: boolean; idempotentHint: boolean };
  };
}

/** Keeps each entry's `command` typed by its own input schema, and its operation by its own name. */
const entry = <S extends z.ZodType, O extends TensionOperation>(e: TensionCommandEntry<S, O>) => e as unknown as TensionCommandEntry<z.ZodType, O>;

const simple = (deps: Deps, make: (at: Date) => TensionCommand): BuildCommand => fromInput(() => make(deps.clock()));

const EDIT = { destructiveHint: false, idempotentHint: true };
const NOT_LIVE = 'Error invalid_transition (with state and command) when the tension is in a state this move does not start from.';
/** What every command on an existing tension shares, said once in each REST description. */
const ANSWERS =
  'Answers the tension and the event the command made; event null when it changed nothing. ' +
  'With `expectedVersion`, writes only if the tension is still at that version (409 version_conflict with currentVersion otherwise).';

/** The commands built from their id and time alone (the lifecycle moves), read off the decider's types. */
type BareCommandType = {
  [T in TensionCommand['type']]: { type: T; id: string; at: Date } extends Extract<TensionCommand, { type: T }> ? T : never;
}[TensionCommand['type']];

/** The verb of a tension row of the permission table (`rename` of `tensions.rename`). */
type TensionVerb = TensionOperation extends `tensions.${infer V}` ? V : never;

function lifecycle<V extends TensionVerb>(verb: V, type: BareCommandType, summary: string, title: string, mcpDescription: string) {
  const field = `${verb}Tension`;
  return entry({
    operation: `tensions.${verb}` as const,
    creates: false,
    rest: {
      method: 'post',
      path: `/tensions/:id/${verb}`,
      status: 200,
      summary,
      input: 'body',
      description: `${mcpDescription} The body is optional (\`expectedVersion\` only). Moving to the state it is already in changes nothing. ${ANSWERS}`,
    },
    input: lifecycleInput,
    errors: ['version_conflict', 'invalid_transition'],
    command: (deps, id) => simple(deps, (at) => ({ type, id, at })),
    example: {},
    graphql: { field, inputType: `${type}Input`, description: `${summary}. Moving to the state it is already in changes nothing (event null). ${NOT_LIVE}` },
    mcp: { name: `${verb}_tension`, title, description: mcpDescription, annotations: EDIT },
  });
}

export const TENSION_COMMANDS = [
  entry({
    operation: 'tensions.sense',
    creates: true,
    rest: {
      method: 'post',
      path: '/tensions',
      status: 201,
      summary: 'Sense a tension',
      input: 'body',
      description:
        'Records a new tension: a gap between the current state (currentContext) and a desired future (potentialFuture) experienced by an actor. ' +
        'Answers the new tension, alive at version 1, and its TensionSensed event. Not idempotent by itself: send an `Idempotency-Key` to retry safely.',
    },
    input: senseTensionInput,
    errors: ['actor_not_found', 'user_not_found', 'not_applicable'],
    command: (deps, id, v) => async (tx) => {
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
    example: { name: 'Sensed', actorId: '7d3f1c52-5b1e-4c6a-9d0e-2f4b8a6c1e90' },
    graphql: { field: 'senseTension', inputType: 'SenseTensionInput', description: 'Records a new tension, alive at version 1.' },
    mcp: {
      name: 'sense_tension',
      title: 'Sense a tension',
      description:
        'Records a new tension: a gap between the current state (currentContext) and a desired future (potentialFuture) experienced by an ' +
        'actor (actorId, from list_actors). score 1-10 (default 5), optional leadUserId. The new tension is alive at version 1. ' +
        'Not idempotent: calling it twice records two tensions. Errors: actor_not_found, user_not_found, not_applicable (lead deactivated).',
      annotations: { destructiveHint: false, idempotentHint: false },
    },
  }),
  entry({
    operation: 'tensions.rename',
    creates: false,
    rest: {
      method: 'post',
      path: '/tensions/:id/rename',
      status: 200,
      summary: 'Rename',
      input: 'body',
      description: `Sets the name (1-200 characters, trimmed). ${ANSWERS}`,
    },
    input: renameTensionInput,
    errors: ['version_conflict'],
    command: (deps, id, v) => simple(deps, (at) => ({ type: 'RenameTension', id, at, name: v.name })),
    example: { name: 'Renamed' },
    graphql: { field: 'renameTension', inputType: 'RenameTensionInput', description: 'Sets the name; the same name changes nothing (event null).' },
    mcp: { name: 'rename_tension', title: 'Rename a tension', description: 'Sets the name (1-200 characters).', annotations: EDIT },
  }),
  entry({
    operation: 'tensions.rescore',
    creates: false,
    rest: {
      method: 'post',
      path: '/tensions/:id/rescore',
      status: 200,
      summary: 'Rescore (1-10)',
      input: 'body',
      description: `Sets the score, an integer 1-10. ${ANSWERS}`,
    },
    input: rescoreTensionInput,
    errors: ['version_conflict'],
    command: (deps, id, v) => simple(deps, (at) => ({ type: 'RescoreTension', id, at, score: v.score })),
    example: { score: 7 },
    graphql: { field: 'rescoreTension', inputType: 'RescoreTensionInput', description: 'Sets the score, 1-10; the same score changes nothing (event null).' },
    mcp: { name: 'rescore_tension', title: 'Rescore a tension', description: 'Sets the score, an integer 1-10.', annotations: EDIT },
  }),
  entry({
    operation: 'tensions.revise',
    creates: false,
    rest: {
      method: 'post',
      path: '/tensions/:id/revise',
      status: 200,
      summary: 'Revise current context and/or potential future',
      input: 'body',
      description: `Changes currentContext and/or potentialFuture (give at least one; null clears it). Only changed fields go into the event. ${ANSWERS}`,
    },
    input: reviseTensionContextInput,
    errors: ['version_conflict'],
    command: (deps, id, v) =>
      simple(deps, (at) => ({
        type: 'ReviseTensionContext',
        id,
        at,
        ...(v.currentContext !== undefined ? { currentContext: v.currentContext } : {}),
        ...(v.potentialFuture !== undefined ? { potentialFuture: v.potentialFuture } : {}),
      })),
    example: { currentContext: 'now' },
    graphql: {
      field: 'reviseTensionContext',
      inputType: 'ReviseTensionContextInput',
      description: 'Changes currentContext and/or potentialFuture (give at least one; null clears a field). Only changed fields go into the event.',
    },
    mcp: {
      name: 'revise_tension_context',
      title: 'Revise tension context',
      description: 'Changes currentContext and/or potentialFuture (give at least one; null clears it; at most 10000 characters).',
      annotations: EDIT,
    },
  }),
  entry({
    operation: 'tensions.lead',
    creates: false,
    rest: {
      method: 'post',
      path: '/tensions/:id/lead',
      status: 200,
      summary: 'Assign or unassign the lead user',
      input: 'body',
      description: `Assigns the lead (an active user), or unassigns it with \`leadUserId: null\`. 404 user_not_found, or 422 not_applicable for a deactivated user. ${ANSWERS}`,
    },
    input: setTensionLeadInput,
    errors: ['version_conflict', 'user_not_found', 'not_applicable'],
    command: (deps, id, v) => async (tx, row) => {
      const lead = v.leadUserId === null ? null : await lookupLead(tx, v.leadUserId);
      if (lead && !lead.ok) return lead;
      return ok({
        type: 'AssignTensionLead',
        id,
        at: deps.clock(),
        leadUserId: lead ? lead.value.id : null,
        leadName: lead ? lead.value.name : null,
        previousLeadName: row?.lead_name ?? null,
      });
    },
    example: { leadUserId: null },
    graphql: { field: 'setTensionLead', inputType: 'SetTensionLeadInput', description: 'Assigns the lead user, or unassigns it with leadUserId null.' },
    mcp: {
      name: 'set_tension_lead',
      title: 'Set tension lead',
      description:
        'Assigns the lead user (leadUserId) or unassigns it (leadUserId: null). Errors: user_not_found; not_applicable when the user is deactivated.',
      annotations: EDIT,
    },
  }),
  entry({
    operation: 'tensions.reassign',
    creates: false,
    rest: {
      method: 'post',
      path: '/tensions/:id/reassign',
      status: 200,
      summary: 'Move to another actor',
      input: 'body',
      description: `Moves the tension to another actor (404 actor_not_found when there is none). ${ANSWERS}`,
    },
    input: reassignTensionInput,
    errors: ['version_conflict', 'actor_not_found'],
    command: (deps, id, v) => async (tx, row) => {
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
    },
    example: { actorId: '7d3f1c52-5b1e-4c6a-9d0e-2f4b8a6c1e90' },
    graphql: { field: 'reassignTension', inputType: 'ReassignTensionInput', description: 'Moves the tension to another actor.' },
    mcp: {
      name: 'reassign_tension',
      title: 'Reassign a tension',
      description: 'Moves the tension to another actor (actorId). Error actor_not_found.',
      annotations: EDIT,
    },
  }),
  lifecycle(
    'resolve',
    'ResolveTension',
    'alive → resolved',
    'Resolve a tension',
    'Marks an alive tension resolved (safe to retry). Error invalid_transition when it is stale: revive it first.',
  ),
  lifecycle(
    'drop',
    'DropTension',
    'alive → stale',
    'Drop a tension',
    'Marks an alive tension stale (dropped). Error invalid_transition when it is resolved: reopen it first.',
  ),
  lifecycle(
    'reopen',
    'ReopenTension',
    'resolved → alive',
    'Reopen a tension',
    'Brings a resolved tension back to alive. Error invalid_transition when it is stale (use revive_tension).',
  ),
  lifecycle(
    'revive',
    'ReviveTension',
    'stale → alive',
    'Revive a tension',
    'Brings a stale tension back to alive. Error invalid_transition when it is resolved (use reopen_tension).',
  ),
  entry({
    operation: 'tensions.discard',
    creates: false,
    rest: {
      method: 'delete',
      path: '/tensions/:id',
      status: 204,
      summary: 'Discard (history stays readable)',
      input: 'query',
      description:
        'Removes the tension from every list and read, whatever its state; its history stays readable. Cannot be undone: a second call is 404 not_found. ' +
        'With `?expectedVersion=N`, discards only if the tension is still at that version (409 version_conflict otherwise).',
    },
    input: lifecycleInput,
    errors: ['version_conflict'],
    command: (deps, id) => simple(deps, (at) => ({ type: 'DiscardTension', id, at })),
    example: {},
    graphql: {
      field: 'discardTension',
      inputType: 'DiscardTensionInput',
      description: 'Removes the tension from every list and read, whatever its state; its history stays readable. Answers tension null.',
    },
    mcp: {
      name: 'discard_tension',
      title: 'Discard a tension',
      description:
        'Deletes the tension from every list and read, whatever its state; its history stays readable. Cannot be undone. ' + 'A second call answers not_found.',
      annotations: { destructiveHint: true, idempotentHint: false },
    },
  }),
] as const;

/** Every tension command's operation (`tensions.sense` … `tensions.discard`): the permission table's command rows. */
export type TensionCommandOperation = (typeof TENSION_COMMANDS)[number]['operation'];

/** The verbs of the commands that would change this tension now, as the decider sees it. */
export function allowedCommandsOf(view: TensionView): string[] {
  return allowedCommands({
    id: view.id,
    name: view.name,
    currentContext: view.currentContext,
    potentialFuture: view.potentialFuture,
    score: view.score,
    state: view.state,
    actorId: view.actorId,
    leadUserId: view.leadUserId,
    version: view.version,
    createdAt: new Date(view.createdAt),
    updatedAt: new Date(view.updatedAt),
  });
}
