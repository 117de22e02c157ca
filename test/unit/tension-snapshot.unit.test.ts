// The fold's fingerprint, which keys snapshots of the past (issue 34): its probe carries every event type,
// and a change of what the fold makes of a stream (evolve, an upcaster, a schema version) changes it.
import { afterEach, describe, expect, it } from 'vitest';
import { evolvePast, NOT_YET } from '../../server/domain/tension.past.js';
import { FOLD_PROBE, foldFingerprint, fromSnapshotJson, toSnapshotJson } from '../../server/domain/tension.snapshot.js';
import { TENSION_EVENT_TYPES, type RecordedTensionEvent } from '../../server/domain/tension.types.js';
import { TENSION_SCHEMA_VERSIONS, UPCASTERS, upcastTensionEvent } from '../../server/domain/tension.upcast.js';

const original = foldFingerprint();
const leadV1 = UPCASTERS.TensionLeadAssigned![1];
afterEach(() => {
  TENSION_SCHEMA_VERSIONS.TensionRenamed = 1;
  UPCASTERS.TensionLeadAssigned![1] = leadV1;
});

describe('the fold fingerprint', () => {
  it('is probed with every event type, and with every old schema version an upcaster reads', () => {
    expect(new Set(FOLD_PROBE.map((e) => e.type))).toEqual(new Set(TENSION_EVENT_TYPES));
    for (const type of TENSION_EVENT_TYPES) {
      for (let v = 1; v <= TENSION_SCHEMA_VERSIONS[type]; v++) {
        expect(
          FOLD_PROBE.some((e) => e.type === type && e.schemaVersion === v),
          `${type} v${v}`,
        ).toBe(true);
      }
    }
  });

  it('is the same on every call, and changes with an upcaster that changes the fold, or a schema version', () => {
    expect(foldFingerprint()).toBe(original);
    UPCASTERS.TensionLeadAssigned![1] = (data) => ({ ...leadV1(data), leadName: 'someone else' });
    expect(foldFingerprint()).not.toBe(original);
    UPCASTERS.TensionLeadAssigned![1] = leadV1;
    TENSION_SCHEMA_VERSIONS.TensionRenamed = 2;
    expect(foldFingerprint()).not.toBe(original);
  });

  it('a stored snapshot reads back as the fold it was made of, at every step of the probe', () => {
    let past = NOT_YET;
    FOLD_PROBE.forEach((row, i) => {
      const { data } = upcastTensionEvent(row.type, row.schemaVersion, row.data);
      past = evolvePast(past, { type: row.type, data, version: i + 1, occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)) } as RecordedTensionEvent);
      expect(fromSnapshotJson(JSON.parse(JSON.stringify(toSnapshotJson(past)))), `after ${row.type}`).toEqual(past);
    });
  });
});
