// decide(command, state): the events a command produces, a no-op, or a refusal (SPEC §3).
import { ok, refuse } from './errors.js';
import { assertNever, type Decision, type TensionCommand, type TensionEvent, type TensionState, type TensionStatus } from './tension.types.js';

const emit = (...events: TensionEvent[]): Decision => ok(events);
const NOOP: Decision = ok([]);

/** The verb a refusal names in its `command` extension: the REST path segment of the command. */
export const COMMAND_VERB: Record<TensionCommand['type'], string> = {
  SenseTension: 'sense',
  RenameTension: 'rename',
  RescoreTension: 'rescore',
  ReviseTensionContext: 'revise',
  AssignTensionLead: 'lead',
  ReassignTension: 'reassign',
  ResolveTension: 'resolve',
  DropTension: 'drop',
  ReopenTension: 'reopen',
  ReviveTension: 'revive',
  DiscardTension: 'discard',
};

function invalidTransition(command: TensionCommand, state: TensionStatus): Decision {
  const verb = COMMAND_VERB[command.type];
  return refuse('invalid_transition', `Cannot ${verb} a tension that is ${state}.`, { state, command: verb });
}

/** A lifecycle move: `from` → `to`; already at `to` is a no-op; anything else is refused. */
function transition(command: TensionCommand, state: TensionState, from: TensionStatus, to: TensionStatus, event: TensionEvent): Decision {
  if (state.state === to) return NOOP;
  if (state.state === from) return emit(event);
  return invalidTransition(command, state.state);
}

/** The decision appends something (neither a no-op nor a refusal). */
export const isAppend = (d: Decision): boolean => d.ok && d.value.length > 0;

export function decide(command: TensionCommand, state: TensionState | null): Decision {
  if (command.type === 'SenseTension') {
    if (state !== null) return invalidTransition(command, state.state);
    return emit({
      type: 'TensionSensed',
      data: {
        id: command.id,
        name: command.name,
        currentContext: command.currentContext,
        potentialFuture: command.potentialFuture,
        score: command.score,
        state: 'alive',
        actorId: command.actorId,
        actorName: command.actorName,
        leadUserId: command.leadUserId,
        leadName: command.leadUserId === null ? null : command.leadName,
      },
    });
  }
  if (state === null) {
    return refuse('not_found', `No tension ${command.id}.`);
  }
  switch (command.type) {
    case 'RenameTension':
      return command.name === state.name ? NOOP : emit({ type: 'TensionRenamed', data: { name: command.name, previousName: state.name } });
    case 'RescoreTension':
      return command.score === state.score ? NOOP : emit({ type: 'TensionRescored', data: { score: command.score, previousScore: state.score } });
    case 'ReviseTensionContext': {
      const data: Extract<TensionEvent, { type: 'TensionContextRevised' }>['data'] = {};
      if (command.currentContext !== undefined && command.currentContext !== state.currentContext) {
        data.currentContext = command.currentContext;
        data.previousCurrentContext = state.currentContext;
      }
      if (command.potentialFuture !== undefined && command.potentialFuture !== state.potentialFuture) {
        data.potentialFuture = command.potentialFuture;
        data.previousPotentialFuture = state.potentialFuture;
      }
      return Object.keys(data).length === 0 ? NOOP : emit({ type: 'TensionContextRevised', data });
    }
    case 'AssignTensionLead':
      if (command.leadUserId === state.leadUserId) return NOOP;
      if (command.leadUserId === null) {
        return emit({ type: 'TensionLeadUnassigned', data: { previousLeadUserId: state.leadUserId! } });
      }
      return emit({
        type: 'TensionLeadAssigned',
        data: {
          leadUserId: command.leadUserId,
          leadName: command.leadName ?? '',
          previousLeadUserId: state.leadUserId,
          previousLeadName: state.leadUserId === null ? null : (command.previousLeadName ?? null),
        },
      });
    case 'ReassignTension':
      return command.actorId === state.actorId
        ? NOOP
        : emit({
            type: 'TensionReassigned',
            data: {
              actorId: command.actorId,
              actorName: command.actorName,
              previousActorId: state.actorId,
              previousActorName: command.previousActorName,
            },
          });
    case 'ResolveTension':
      return transition(command, state, 'alive', 'resolved', { type: 'TensionResolved', data: {} });
    case 'DropTension':
      return transition(command, state, 'alive', 'stale', { type: 'TensionDropped', data: {} });
    case 'ReopenTension':
      return transition(command, state, 'resolved', 'alive', { type: 'TensionReopened', data: {} });
    case 'ReviveTension':
      return transition(command, state, 'stale', 'alive', { type: 'TensionRevived', data: {} });
    case 'DiscardTension':
      return emit({ type: 'TensionDiscarded', data: {} });
    default:
      return assertNever(command);
  }
}

/**
 * The commands that would change `state` (SPEC §3), by verb: each command is put to `decide` with values
 * that differ from the state, and kept when it would append an event. Clients show these instead of
 * keeping their own copy of the lifecycle rules. Sense never applies to an existing tension.
 */
export function allowedCommands(state: TensionState): string[] {
  const base = { id: state.id, at: state.updatedAt };
  // One probe per command but Sense, keyed by its type: a command added to `TensionCommand` without a probe fails to compile.
  const probes: { [K in Exclude<TensionCommand['type'], 'SenseTension'>]: Extract<TensionCommand, { type: K }> } = {
    RenameTension: { ...base, type: 'RenameTension', name: `${state.name} ` },
    RescoreTension: { ...base, type: 'RescoreTension', score: state.score === 10 ? 1 : state.score + 1 },
    ReviseTensionContext: { ...base, type: 'ReviseTensionContext', currentContext: `${state.currentContext ?? ''} ` },
    AssignTensionLead: { ...base, type: 'AssignTensionLead', leadUserId: state.leadUserId === null ? state.id : null, leadName: null },
    ReassignTension: { ...base, type: 'ReassignTension', actorId: state.id, actorName: '', previousActorName: '' },
    ResolveTension: { ...base, type: 'ResolveTension' },
    DropTension: { ...base, type: 'DropTension' },
    ReopenTension: { ...base, type: 'ReopenTension' },
    ReviveTension: { ...base, type: 'ReviveTension' },
    DiscardTension: { ...base, type: 'DiscardTension' },
  };
  return (Object.values(probes) as TensionCommand[]).filter((c) => isAppend(decide(c, state))).map((c) => COMMAND_VERB[c.type]);
}
