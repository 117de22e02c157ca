// Snapshots of the past fold (issue 34): a PastTension as JSON, and the fingerprint of the fold that made it.
// A snapshot is only a shortcut through `foldPast`: it is used only by the fold whose fingerprint it carries,
// so a change to `evolve`, to the names the past keeps or to an upcaster leaves old snapshots unread.
import type { PastTension } from './tension.past.js';
import { evolvePast, NOT_YET } from './tension.past.js';
import type { RecordedTensionEvent, TensionState } from './tension.types.js';
import { TENSION_SCHEMA_VERSIONS, upcastTensionEvent } from './tension.upcast.js';

/**
 * Bump when the fold changes in a way the probe below does not show (a new field read only by events the
 * probe does not carry). Most changes need no bump: they change the probe's states, hence the fingerprint.
 */
const PAST_FOLD_REVISION = 1;

/** A PastTension as stored: dates as ISO strings. */
export interface SnapshotJson {
  state: (Omit<TensionState, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string }) | null;
  actorName?: string;
  leadName?: string | null;
}

export function toSnapshotJson(past: PastTension): SnapshotJson {
  const s = past.state;
  return {
    state: s && { ...s, createdAt: s.createdAt.toISOString(), updatedAt: s.updatedAt.toISOString() },
    ...('actorName' in past ? { actorName: past.actorName } : {}),
    ...('leadName' in past ? { leadName: past.leadName } : {}),
  };
}

export function fromSnapshotJson(json: SnapshotJson): PastTension {
  const s = json.state;
  return {
    state: s && { ...s, createdAt: new Date(s.createdAt), updatedAt: new Date(s.updatedAt) },
    ...('actorName' in json ? { actorName: json.actorName } : {}),
    ...('leadName' in json ? { leadName: json.leadName } : {}),
  };
}

const T0 = Date.UTC(2026, 0, 1);
const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const U = '00000000-0000-4000-8000-00000000000c';

/**
 * A stream that carries every event type, as stored rows (type, schemaVersion, data): one in an old shape, so
 * that the upcasters are part of what is fingerprinted. Exported for the unit test that holds it complete.
 */
export const FOLD_PROBE: { type: string; schemaVersion: number; data: Record<string, unknown> }[] = [
  {
    type: 'TensionSensed',
    schemaVersion: 1,
    data: {
      id: A,
      name: 'n',
      currentContext: 'c',
      potentialFuture: null,
      score: 3,
      state: 'alive',
      actorId: A,
      actorName: 'a',
      leadUserId: null,
      leadName: null,
    },
  },
  { type: 'TensionRenamed', schemaVersion: 1, data: { name: 'm', previousName: 'n' } },
  { type: 'TensionRescored', schemaVersion: 1, data: { score: 7, previousScore: 3 } },
  { type: 'TensionContextRevised', schemaVersion: 1, data: { potentialFuture: 'f' } },
  { type: 'TensionLeadAssigned', schemaVersion: 1, data: { leadUserId: U, leadName: 'u', previousLeadUserId: null } },
  { type: 'TensionLeadAssigned', schemaVersion: 2, data: { leadUserId: B, leadName: 'b', previousLeadUserId: U, previousLeadName: 'u' } },
  { type: 'TensionReassigned', schemaVersion: 1, data: { actorId: B, actorName: 'b', previousActorId: A, previousActorName: 'a' } },
  { type: 'TensionLeadUnassigned', schemaVersion: 1, data: { previousLeadUserId: B } },
  { type: 'TensionResolved', schemaVersion: 1, data: {} },
  { type: 'TensionReopened', schemaVersion: 1, data: {} },
  { type: 'TensionDropped', schemaVersion: 1, data: {} },
  { type: 'TensionRevived', schemaVersion: 1, data: {} },
  { type: 'TensionDiscarded', schemaVersion: 1, data: {} },
];

/**
 * What the fold is today: its revision, the event schema versions, and the state after each event of the
 * probe, upcast as every read upcasts. Snapshots carry (a digest of) it and are read only by the same fold.
 */
export function foldFingerprint(): string {
  let past = NOT_YET;
  const states = FOLD_PROBE.map((row, i) => {
    const { data } = upcastTensionEvent(row.type, row.schemaVersion, row.data);
    past = evolvePast(past, { type: row.type, data, version: i + 1, occurredAt: new Date(T0 + i * 1000) } as RecordedTensionEvent);
    return toSnapshotJson(past);
  });
  return JSON.stringify([PAST_FOLD_REVISION, TENSION_SCHEMA_VERSIONS, states]);
}
