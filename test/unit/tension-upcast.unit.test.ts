// Old event shapes reach today's: every event type's versions are joined by upcasters, and a version-1
// TensionLeadAssigned reads as version 2.
import { describe, expect, it } from 'vitest';
import { TENSION_SCHEMA_VERSIONS, UPCASTERS, upcastTensionEvent } from '../../server/domain/tension.upcast.js';
import { TENSION_EVENT_TYPES } from '../../server/domain/tension.types.js';

describe('upcasting', () => {
  it('every event type has a current version, and a function for every step up to it', () => {
    expect(Object.keys(TENSION_SCHEMA_VERSIONS).sort()).toEqual([...TENSION_EVENT_TYPES].sort());
    for (const type of TENSION_EVENT_TYPES) {
      for (let v = 1; v < TENSION_SCHEMA_VERSIONS[type]; v++) expect(UPCASTERS[type]?.[v], `${type} ${v} → ${v + 1}`).toBeTypeOf('function');
    }
  });

  it('TensionLeadAssigned 1 → 2: previousLeadName, null (not recorded)', () => {
    const v1 = { leadUserId: 'b', leadName: 'Bob', previousLeadUserId: 'a' };
    expect(upcastTensionEvent('TensionLeadAssigned', 1, v1)).toEqual({ schemaVersion: 2, data: { ...v1, previousLeadName: null } });
    expect(v1).not.toHaveProperty('previousLeadName');
  });

  it('leaves the current version, a newer one and an unknown type as they are', () => {
    const v2 = { leadUserId: 'b', leadName: 'Bob', previousLeadUserId: 'a', previousLeadName: 'Alice' };
    expect(upcastTensionEvent('TensionLeadAssigned', 2, v2)).toEqual({ schemaVersion: 2, data: v2 });
    expect(upcastTensionEvent('TensionLeadAssigned', 3, { x: 1 })).toEqual({ schemaVersion: 3, data: { x: 1 } });
    expect(upcastTensionEvent('SomethingElse', 1, { x: 1 })).toEqual({ schemaVersion: 1, data: { x: 1 } });
    expect(upcastTensionEvent('TensionRenamed', 1, { name: 'b', previousName: 'a' })).toEqual({ schemaVersion: 1, data: { name: 'b', previousName: 'a' } });
  });
});
