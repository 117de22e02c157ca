// A stored tension event in the history entry shape of SPEC §4.
import { summarize } from '../../domain/tension.history.js';
import type { TensionEvent } from '../../domain/tension.types.js';
import type { StoredEvent } from '../../persistence/event-store.js';
import type { HistoryEntry } from './tension.inputs.js';

export function toHistoryEntry(e: StoredEvent): HistoryEntry {
  const m = e.metadata;
  return {
    version: e.version,
    type: e.type,
    occurredAt: e.occurredAt.toISOString(),
    by: { kind: m.actorKind, userId: m.userId, userName: m.userName, apiKeyName: m.apiKeyName, via: m.via },
    ...summarize({ type: e.type, data: e.data } as TensionEvent),
    data: e.data,
  };
}
