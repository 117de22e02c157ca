// Old events stay readable as the model grows: every tension event type has a current schema version, and
// an event recorded in an older one is brought up to it, one version at a time, whenever a stream is
// folded or served. Stored rows are never rewritten (the table is append-only); the export keeps them as
// they were written.
import type { TensionEventType } from './tension.types.js';

/** The version of each event type's `data` that `decide` writes today and `evolve` and the faces read. */
export const TENSION_SCHEMA_VERSIONS: Record<TensionEventType, number> = {
  TensionSensed: 1,
  TensionRenamed: 1,
  TensionRescored: 1,
  TensionContextRevised: 1,
  // 2: carries `previousLeadName`, as TensionReassigned always carried `previousActorName`, so a change of
  // lead reads "from Alice to Bob" without replaying the stream.
  TensionLeadAssigned: 2,
  TensionLeadUnassigned: 1,
  TensionReassigned: 1,
  TensionResolved: 1,
  TensionDropped: 1,
  TensionReopened: 1,
  TensionRevived: 1,
  TensionDiscarded: 1,
};

type Data = Record<string, unknown>;

/** Per event type, the function that takes `data` of version n to version n + 1, keyed by n. */
export const UPCASTERS: Partial<Record<TensionEventType, Record<number, (data: Data) => Data>>> = {
  TensionLeadAssigned: {
    // Version 1 did not record the previous lead's name, and it cannot be known from the event alone
    // (the user may have been renamed since): null says "not recorded", as it says "none" when there was
    // no previous lead.
    1: (data) => ({ ...data, previousLeadName: null }),
  },
};

export interface VersionedData {
  schemaVersion: number;
  data: Data;
}

/**
 * `data` of `type` recorded in `schemaVersion`, brought up to the type's current version. An unknown type,
 * or a version newer than this code knows (written by a newer instance during a rolling deploy), is
 * answered as it is: a fold ignores what it does not know rather than breaking (STYLE §3).
 */
export function upcastTensionEvent(type: string, schemaVersion: number, data: Data): VersionedData {
  const current = TENSION_SCHEMA_VERSIONS[type as TensionEventType] as number | undefined;
  if (current === undefined || schemaVersion >= current) return { schemaVersion, data };
  const steps = UPCASTERS[type as TensionEventType] ?? {};
  let version = schemaVersion;
  let out = data;
  while (version < current) {
    // every step has its function (a unit test checks it); a missing one would leave data as it was
    const step = steps[version];
    if (step) out = step(out);
    version++;
  }
  return { schemaVersion: version, data: out };
}
