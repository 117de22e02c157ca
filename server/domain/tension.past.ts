// A tension as it was at a point of its stream: the state `evolve` folds (the one fold the projection and
// the rebuild use), beside the names the events recorded for its actor and lead at the time.
import { evolve } from './tension.evolve.js';
import type { RecordedTensionEvent, TensionState } from './tension.types.js';

export interface PastTension {
  /** null: not sensed yet, or discarded by then */
  state: TensionState | null;
  /** the actor's and the lead's names as the events recorded them; undefined when no event named them */
  actorName?: string;
  leadName?: string | null;
}

/** The names an event records; nothing about the state, which stays `evolve`'s. */
function namesIn(event: RecordedTensionEvent): Pick<PastTension, 'actorName' | 'leadName'> {
  switch (event.type) {
    case 'TensionSensed':
      return { actorName: event.data.actorName, leadName: event.data.leadUserId === null ? null : event.data.leadName };
    case 'TensionReassigned':
      return { actorName: event.data.actorName };
    case 'TensionLeadAssigned':
      return { leadName: event.data.leadName };
    case 'TensionLeadUnassigned':
      return { leadName: null };
    default:
      return {};
  }
}

export function evolvePast(past: PastTension, event: RecordedTensionEvent): PastTension {
  return { ...past, ...namesIn(event), state: evolve(past.state, event) };
}

export const NOT_YET: PastTension = { state: null };

/**
 * Folds a stream's recorded events, oldest first: the one fold of a whole stream (the tests that hold the
 * projection to it; reads of the past run the same `evolvePast`, from a snapshot of it when there is one). Commands never fold: they decide on the projection row, the
 * fold's snapshot at the head (server/persistence/event-store.ts says why).
 */
export function foldPast(events: RecordedTensionEvent[]): PastTension {
  return events.reduce(evolvePast, NOT_YET);
}
