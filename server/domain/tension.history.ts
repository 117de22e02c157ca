// How a recorded event reads in a tension's history: English summary, i18n key and its params (SPEC §4).
import { assertNever, type TensionEvent } from './tension.types.js';

export interface HistorySummary {
  summary: string;
  summaryKey: string;
  summaryParams: Record<string, unknown>;
}

const plain = (summaryKey: string, summary: string): HistorySummary => ({ summary, summaryKey, summaryParams: {} });

export function summarize(event: TensionEvent): HistorySummary {
  switch (event.type) {
    case 'TensionSensed':
      return { summary: 'Tension sensed', summaryKey: 'history.sensed', summaryParams: { name: event.data.name } };
    case 'TensionRenamed':
      return {
        summary: `Renamed from "${event.data.previousName}" to "${event.data.name}"`,
        summaryKey: 'history.renamed',
        summaryParams: { from: event.data.previousName, to: event.data.name },
      };
    case 'TensionRescored': {
      const { score: to, previousScore: from } = event.data;
      const raised = to > from;
      return {
        summary: `Score ${raised ? 'raised' : 'lowered'} from ${from} to ${to}`,
        summaryKey: raised ? 'history.rescored.raised' : 'history.rescored.lowered',
        summaryParams: { from, to },
      };
    }
    case 'TensionContextRevised': {
      const current = 'currentContext' in event.data;
      const future = 'potentialFuture' in event.data;
      if (current && future) return plain('history.contextRevised.both', 'Revised current context and potential future');
      if (future) return plain('history.contextRevised.future', 'Revised potential future');
      return plain('history.contextRevised.current', 'Revised current context');
    }
    case 'TensionLeadAssigned':
      return {
        summary: `Lead assigned to ${event.data.leadName}`,
        summaryKey: 'history.leadAssigned',
        summaryParams: { leadUserId: event.data.leadUserId, leadName: event.data.leadName },
      };
    case 'TensionLeadUnassigned':
      return plain('history.leadUnassigned', 'Lead unassigned');
    case 'TensionReassigned':
      return {
        summary: `Reassigned from ${event.data.previousActorName} to ${event.data.actorName}`,
        summaryKey: 'history.reassigned',
        summaryParams: {
          fromActorId: event.data.previousActorId,
          fromActorName: event.data.previousActorName,
          toActorId: event.data.actorId,
          toActorName: event.data.actorName,
        },
      };
    case 'TensionResolved':
      return plain('history.resolved', 'Resolved');
    case 'TensionDropped':
      return plain('history.dropped', 'Dropped as stale');
    case 'TensionReopened':
      return plain('history.reopened', 'Reopened');
    case 'TensionRevived':
      return plain('history.revived', 'Revived');
    case 'TensionDiscarded':
      return plain('history.discarded', 'Discarded');
    default:
      return assertNever(event);
  }
}
