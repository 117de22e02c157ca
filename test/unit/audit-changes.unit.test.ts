// The `changes` of an audit entry (SPEC §11): what changed, field by field, and nothing that did not.
import { describe, expect, it } from 'vitest';
import { diffFields, fieldsOf } from '../../server/application/audit/audit.js';

describe('audit changes', () => {
  it('lists every field given at creation from null, leaving out null fields', () => {
    expect(fieldsOf({ name: 'Ops', type: 'agent', linkedActorId: null, roleIds: [] })).toEqual({
      name: { from: null, to: 'Ops' },
      type: { from: null, to: 'agent' },
      roleIds: { from: null, to: [] },
    });
  });

  it('lists the fields of something gone, to null', () => {
    expect(fieldsOf({ code: 'ops', permissions: ['users:read'] }, true)).toEqual({
      code: { from: 'ops', to: null },
      permissions: { from: ['users:read'], to: null },
    });
  });

  it('diffs only the fields given, and only those that changed; arrays compare as sets', () => {
    const before = { name: 'A', email: 'a@x', linkedActorId: 'l1', permissions: ['x', 'y'] };
    expect(diffFields(before, { name: 'A', email: undefined, permissions: ['y', 'x'] })).toEqual({});
    expect(diffFields(before, { name: 'B', linkedActorId: null, permissions: ['x'] })).toEqual({
      name: { from: 'A', to: 'B' },
      linkedActorId: { from: 'l1', to: null },
      permissions: { from: ['x', 'y'], to: ['x'] },
    });
  });
});
