// evolve(state, event): the next state. Never throws, so any recorded history can be replayed.
import type { RecordedTensionEvent, TensionState } from './tension.types.js';

export function evolve(state: TensionState | null, event: RecordedTensionEvent): TensionState | null {
  if (event.type === 'TensionSensed') {
    const d = event.data;
    return {
      id: d.id,
      name: d.name,
      currentContext: d.currentContext ?? null,
      potentialFuture: d.potentialFuture ?? null,
      score: d.score,
      state: 'alive',
      actorId: d.actorId,
      leadUserId: d.leadUserId ?? null,
      version: event.version,
      createdAt: event.occurredAt,
      updatedAt: event.occurredAt,
    };
  }
  if (state === null) return null;
  const next: TensionState = { ...state, version: event.version, updatedAt: event.occurredAt };
  switch (event.type) {
    case 'TensionRenamed':
      return { ...next, name: event.data.name };
    case 'TensionRescored':
      return { ...next, score: event.data.score };
    case 'TensionContextRevised':
      return {
        ...next,
        ...('currentContext' in event.data ? { currentContext: event.data.currentContext ?? null } : {}),
        ...('potentialFuture' in event.data ? { potentialFuture: event.data.potentialFuture ?? null } : {}),
      };
    case 'TensionLeadAssigned':
      return { ...next, leadUserId: event.data.leadUserId };
    case 'TensionLeadUnassigned':
      return { ...next, leadUserId: null };
    case 'TensionReassigned':
      return { ...next, actorId: event.data.actorId };
    case 'TensionResolved':
      return { ...next, state: 'resolved' };
    case 'TensionDropped':
      return { ...next, state: 'stale' };
    case 'TensionReopened':
    case 'TensionRevived':
      return { ...next, state: 'alive' };
    case 'TensionDiscarded':
      return null;
    default: {
      // An unknown (future or foreign) event type changes nothing rather than breaking a replay.
      const _exhaustive: never = event;
      void _exhaustive;
      return state;
    }
  }
}
