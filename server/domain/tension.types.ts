// The tension aggregate's vocabulary: its state, the commands it accepts and the events it records (SPEC §3).
import type { Result } from './errors.js';

export type TensionStatus = 'alive' | 'resolved' | 'stale';

export interface TensionState {
  id: string;
  name: string;
  currentContext: string | null;
  potentialFuture: string | null;
  score: number;
  state: TensionStatus;
  actorId: string;
  leadUserId: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

interface CommandBase {
  id: string;
  at: Date;
}

export type TensionCommand =
  | (CommandBase & {
      type: 'SenseTension';
      name: string;
      currentContext: string | null;
      potentialFuture: string | null;
      score: number;
      actorId: string;
      actorName: string;
      leadUserId: string | null;
      leadName: string | null;
    })
  | (CommandBase & { type: 'RenameTension'; name: string })
  | (CommandBase & { type: 'RescoreTension'; score: number })
  | (CommandBase & { type: 'ReviseTensionContext'; currentContext?: string | null; potentialFuture?: string | null })
  | (CommandBase & {
      type: 'AssignTensionLead';
      leadUserId: string | null;
      leadName: string | null;
      /** the current lead's name as the command found it (recorded when the lead changes hands) */
      previousLeadName?: string | null;
    })
  | (CommandBase & { type: 'ReassignTension'; actorId: string; actorName: string; previousActorName: string })
  | (CommandBase & { type: 'ResolveTension' })
  | (CommandBase & { type: 'DropTension' })
  | (CommandBase & { type: 'ReopenTension' })
  | (CommandBase & { type: 'ReviveTension' })
  | (CommandBase & { type: 'DiscardTension' });

export type TensionEvent =
  | {
      type: 'TensionSensed';
      data: {
        id: string;
        name: string;
        currentContext: string | null;
        potentialFuture: string | null;
        score: number;
        state: 'alive';
        actorId: string;
        actorName: string;
        leadUserId: string | null;
        leadName: string | null;
      };
    }
  | { type: 'TensionRenamed'; data: { name: string; previousName: string } }
  | { type: 'TensionRescored'; data: { score: number; previousScore: number } }
  | {
      type: 'TensionContextRevised';
      data: {
        currentContext?: string | null;
        previousCurrentContext?: string | null;
        potentialFuture?: string | null;
        previousPotentialFuture?: string | null;
      };
    }
  | {
      type: 'TensionLeadAssigned';
      /** schema version 2 (tension.upcast.ts): `previousLeadName`, null when there was none or it was not recorded */
      data: { leadUserId: string; leadName: string; previousLeadUserId: string | null; previousLeadName: string | null };
    }
  | { type: 'TensionLeadUnassigned'; data: { previousLeadUserId: string } }
  | {
      type: 'TensionReassigned';
      data: { actorId: string; actorName: string; previousActorId: string; previousActorName: string };
    }
  | { type: 'TensionResolved'; data: Record<string, never> }
  | { type: 'TensionDropped'; data: Record<string, never> }
  | { type: 'TensionReopened'; data: Record<string, never> }
  | { type: 'TensionRevived'; data: Record<string, never> }
  | { type: 'TensionDiscarded'; data: Record<string, never> };

export type TensionEventType = TensionEvent['type'];

/**
 * Every event type once, in SPEC §3's order. Keyed by the union, so an event type added to `TensionEvent`
 * and forgotten here (or a name here that is no event's) fails to compile.
 */
const EVENT_TYPES: Record<TensionEventType, true> = {
  TensionSensed: true,
  TensionRenamed: true,
  TensionRescored: true,
  TensionContextRevised: true,
  TensionLeadAssigned: true,
  TensionLeadUnassigned: true,
  TensionReassigned: true,
  TensionResolved: true,
  TensionDropped: true,
  TensionReopened: true,
  TensionRevived: true,
  TensionDiscarded: true,
};

export const TENSION_EVENT_TYPES = Object.keys(EVENT_TYPES) as readonly TensionEventType[];

/** An event as recorded in its stream: the version it got and when it happened. */
export type RecordedTensionEvent = TensionEvent & { version: number; occurredAt: Date };

/** The events a command appends (none: a no-op, the command would change nothing) or the refusal. */
export type Decision = Result<TensionEvent[]>;

export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
