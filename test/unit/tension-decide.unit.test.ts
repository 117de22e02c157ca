// Given events → when command → then events / no-op / refusal, for every command in every state.
import { describe, expect, it } from 'vitest';
import { allowedCommands, decide, isAppend } from '../../server/domain/tension.decide.js';
import { evolve } from '../../server/domain/tension.evolve.js';
import { foldPast } from '../../server/domain/tension.past.js';
import { summarize } from '../../server/domain/tension.history.js';
import type { RecordedTensionEvent, TensionCommand, TensionEvent, TensionState, TensionStatus } from '../../server/domain/tension.types.js';

const ID = '00000000-0000-4000-8000-000000000001';
const ACTOR = '00000000-0000-4000-8000-0000000000a1';
const ACTOR2 = '00000000-0000-4000-8000-0000000000a2';
const LEAD = '00000000-0000-4000-8000-0000000000b1';
const T0 = new Date('2026-01-01T00:00:00Z');
const AT = new Date('2026-01-02T00:00:00Z');

const sensed: TensionEvent = {
  type: 'TensionSensed',
  data: {
    id: ID,
    name: 'Supply gap',
    currentContext: 'now',
    potentialFuture: null,
    score: 5,
    state: 'alive',
    actorId: ACTOR,
    actorName: 'Org A',
    leadUserId: null,
    leadName: null,
  },
};

function given(...events: TensionEvent[]): TensionState | null {
  return foldPast(events.map((e, i) => ({ ...e, version: i + 1, occurredAt: T0 }))).state;
}

const inState: Record<TensionStatus | 'discarded' | 'unsensed', () => TensionState | null> = {
  alive: () => given(sensed),
  resolved: () => given(sensed, { type: 'TensionResolved', data: {} }),
  stale: () => given(sensed, { type: 'TensionDropped', data: {} }),
  discarded: () => given(sensed, { type: 'TensionDiscarded', data: {} }),
  unsensed: () => null,
};

const commands: Record<string, TensionCommand> = {
  sense: {
    type: 'SenseTension',
    id: ID,
    at: AT,
    name: 'X',
    currentContext: null,
    potentialFuture: null,
    score: 5,
    actorId: ACTOR,
    actorName: 'Org A',
    leadUserId: null,
    leadName: null,
  },
  rename: { type: 'RenameTension', id: ID, at: AT, name: 'Renamed' },
  rescore: { type: 'RescoreTension', id: ID, at: AT, score: 8 },
  revise: { type: 'ReviseTensionContext', id: ID, at: AT, currentContext: 'later' },
  lead: { type: 'AssignTensionLead', id: ID, at: AT, leadUserId: LEAD, leadName: 'Alice' },
  reassign: { type: 'ReassignTension', id: ID, at: AT, actorId: ACTOR2, actorName: 'Org B', previousActorName: 'Org A' },
  resolve: { type: 'ResolveTension', id: ID, at: AT },
  drop: { type: 'DropTension', id: ID, at: AT },
  reopen: { type: 'ReopenTension', id: ID, at: AT },
  revive: { type: 'ReviveTension', id: ID, at: AT },
  discard: { type: 'DiscardTension', id: ID, at: AT },
};

// state → command → expected outcome: an event type, 'noop', or a refusal code
const TABLE: Record<string, Record<string, string>> = {
  alive: {
    sense: 'invalid_transition',
    rename: 'TensionRenamed',
    rescore: 'TensionRescored',
    revise: 'TensionContextRevised',
    lead: 'TensionLeadAssigned',
    reassign: 'TensionReassigned',
    resolve: 'TensionResolved',
    drop: 'TensionDropped',
    reopen: 'noop',
    revive: 'noop',
    discard: 'TensionDiscarded',
  },
  resolved: {
    sense: 'invalid_transition',
    rename: 'TensionRenamed',
    rescore: 'TensionRescored',
    revise: 'TensionContextRevised',
    lead: 'TensionLeadAssigned',
    reassign: 'TensionReassigned',
    resolve: 'noop',
    drop: 'invalid_transition',
    reopen: 'TensionReopened',
    revive: 'invalid_transition',
    discard: 'TensionDiscarded',
  },
  stale: {
    sense: 'invalid_transition',
    rename: 'TensionRenamed',
    rescore: 'TensionRescored',
    revise: 'TensionContextRevised',
    lead: 'TensionLeadAssigned',
    reassign: 'TensionReassigned',
    resolve: 'invalid_transition',
    drop: 'noop',
    reopen: 'invalid_transition',
    revive: 'TensionRevived',
    discard: 'TensionDiscarded',
  },
  discarded: {
    sense: 'TensionSensed',
    rename: 'not_found',
    rescore: 'not_found',
    revise: 'not_found',
    lead: 'not_found',
    reassign: 'not_found',
    resolve: 'not_found',
    drop: 'not_found',
    reopen: 'not_found',
    revive: 'not_found',
    discard: 'not_found',
  },
  unsensed: {
    sense: 'TensionSensed',
    rename: 'not_found',
    rescore: 'not_found',
    revise: 'not_found',
    lead: 'not_found',
    reassign: 'not_found',
    resolve: 'not_found',
    drop: 'not_found',
    reopen: 'not_found',
    revive: 'not_found',
    discard: 'not_found',
  },
};

function outcome(command: TensionCommand, state: TensionState | null): string {
  const d = decide(command, state);
  if (!d.ok) return d.code;
  if (d.value.length === 0) return 'noop';
  return d.value.map((e) => e.type).join(',');
}

describe('decide: every command in every state', () => {
  for (const [stateName, row] of Object.entries(TABLE)) {
    for (const [commandName, expected] of Object.entries(row)) {
      it(`${stateName} + ${commandName} → ${expected}`, () => {
        expect(outcome(commands[commandName], inState[stateName as keyof typeof inState]())).toBe(expected);
      });
    }
  }

  it('names the state and the command when a transition is invalid', () => {
    const d = decide(commands.revive, inState.resolved());
    expect(d).toEqual({ ok: false, code: 'invalid_transition', detail: expect.any(String), extensions: { state: 'resolved', command: 'revive' } });
  });
});

describe('decide: edits', () => {
  const alive = () => inState.alive()!;

  it('carries previous values in edit events', () => {
    expect(decide(commands.rename, alive())).toEqual({ ok: true, value: [{ type: 'TensionRenamed', data: { name: 'Renamed', previousName: 'Supply gap' } }] });
    expect(decide(commands.rescore, alive())).toEqual({ ok: true, value: [{ type: 'TensionRescored', data: { score: 8, previousScore: 5 } }] });
    expect(decide(commands.reassign, alive())).toEqual({
      ok: true,
      value: [{ type: 'TensionReassigned', data: { actorId: ACTOR2, actorName: 'Org B', previousActorId: ACTOR, previousActorName: 'Org A' } }],
    });
    expect(decide(commands.lead, alive())).toEqual({
      ok: true,
      value: [{ type: 'TensionLeadAssigned', data: { leadUserId: LEAD, leadName: 'Alice', previousLeadUserId: null, previousLeadName: null } }],
    });
  });

  it('is a no-op when nothing changes', () => {
    expect(decide({ ...commands.rename, name: 'Supply gap' } as TensionCommand, alive())).toEqual({ ok: true, value: [] });
    expect(decide({ ...commands.rescore, score: 5 } as TensionCommand, alive())).toEqual({ ok: true, value: [] });
    expect(decide({ type: 'ReviseTensionContext', id: ID, at: AT, currentContext: 'now', potentialFuture: null }, alive())).toEqual({ ok: true, value: [] });
    expect(decide({ type: 'AssignTensionLead', id: ID, at: AT, leadUserId: null, leadName: null }, alive())).toEqual({ ok: true, value: [] });
    expect(decide({ ...commands.reassign, actorId: ACTOR } as TensionCommand, alive())).toEqual({ ok: true, value: [] });
  });

  it('puts only the changed context fields into the revision', () => {
    const d = decide({ type: 'ReviseTensionContext', id: ID, at: AT, currentContext: 'now', potentialFuture: 'better' }, alive());
    expect(d).toEqual({ ok: true, value: [{ type: 'TensionContextRevised', data: { potentialFuture: 'better', previousPotentialFuture: null } }] });
  });

  it('records the previous lead and its name when the lead changes hands (TensionLeadAssigned version 2)', () => {
    const led = given(sensed, {
      type: 'TensionLeadAssigned',
      data: { leadUserId: LEAD, leadName: 'Alice', previousLeadUserId: null, previousLeadName: null },
    })!;
    const OTHER = '00000000-0000-4000-8000-0000000000b2';
    expect(decide({ type: 'AssignTensionLead', id: ID, at: AT, leadUserId: OTHER, leadName: 'Bob', previousLeadName: 'Alice' }, led)).toEqual({
      ok: true,
      value: [{ type: 'TensionLeadAssigned', data: { leadUserId: OTHER, leadName: 'Bob', previousLeadUserId: LEAD, previousLeadName: 'Alice' } }],
    });
  });

  it('unassigns a lead with the previous lead in the event', () => {
    const led = given(sensed, {
      type: 'TensionLeadAssigned',
      data: { leadUserId: LEAD, leadName: 'Alice', previousLeadUserId: null, previousLeadName: null },
    })!;
    expect(decide({ type: 'AssignTensionLead', id: ID, at: AT, leadUserId: null, leadName: null }, led)).toEqual({
      ok: true,
      value: [{ type: 'TensionLeadUnassigned', data: { previousLeadUserId: LEAD } }],
    });
  });
});

describe('property: folding what decide produced gives the state decide assumed', () => {
  // A seeded pseudo-random walk over commands; every step checks evolve against decide's intent.
  function rng(seed: number) {
    return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  }
  const names = Object.keys(commands);

  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`random walk ${seed}`, () => {
      const rand = rng(seed);
      let state: TensionState | null = null;
      const history: RecordedTensionEvent[] = [];
      for (let step = 0; step < 200; step++) {
        const name = names[Math.floor(rand() * names.length)];
        const base = commands[name];
        const command = { ...base, at: new Date(AT.getTime() + step * 1000) };
        if (command.type === 'RescoreTension') command.score = 1 + Math.floor(rand() * 10);
        if (command.type === 'RenameTension') command.name = `n${Math.floor(rand() * 3)}`;
        if (command.type === 'AssignTensionLead' && rand() < 0.5) Object.assign(command, { leadUserId: null, leadName: null });
        if (command.type === 'ReviseTensionContext') {
          // each field: left out, cleared or one of two texts, so revisions change one, both or nothing
          const field = () => [undefined, null, 'c0', 'c1'][Math.floor(rand() * 4)];
          Object.assign(command, { currentContext: field(), potentialFuture: field() });
        }
        const d = decide(command, state);
        if (!isAppend(d) || !d.ok) continue;
        for (const e of d.value) {
          const rec = { ...e, version: history.length + 1, occurredAt: command.at };
          history.push(rec);
          const next = evolve(state, rec);
          // what decide assumed
          switch (e.type) {
            case 'TensionRenamed':
              expect(next!.name).toBe(e.data.name);
              expect(state!.name).toBe(e.data.previousName);
              break;
            case 'TensionRescored':
              expect(next!.score).toBe(e.data.score);
              expect(state!.score).toBe(e.data.previousScore);
              break;
            case 'TensionResolved':
              expect(next!.state).toBe('resolved');
              break;
            case 'TensionDropped':
              expect(next!.state).toBe('stale');
              break;
            case 'TensionReopened':
            case 'TensionRevived':
              expect(next!.state).toBe('alive');
              break;
            case 'TensionDiscarded':
              expect(next).toBeNull();
              break;
            case 'TensionSensed':
              expect(next!.version).toBe(rec.version);
              expect(next!.state).toBe('alive');
              break;
            case 'TensionLeadAssigned':
              expect(next!.leadUserId).toBe(e.data.leadUserId);
              break;
            case 'TensionLeadUnassigned':
              expect(next!.leadUserId).toBeNull();
              break;
            case 'TensionReassigned':
              expect(next!.actorId).toBe(e.data.actorId);
              break;
            case 'TensionContextRevised': {
              expect(Object.keys(e.data).length).toBeGreaterThan(0);
              for (const [field, previous] of [
                ['currentContext', 'previousCurrentContext'],
                ['potentialFuture', 'previousPotentialFuture'],
              ] as const) {
                if (field in e.data) {
                  expect(next![field]).toBe(e.data[field]);
                  expect(state![field]).toBe(e.data[previous]);
                  expect(e.data[field]).not.toBe(e.data[previous]);
                } else {
                  expect(previous in e.data).toBe(false);
                  expect(next![field]).toBe(state![field]);
                }
              }
              break;
            }
          }
          if (next) expect(next.version).toBe(rec.version);
          state = next;
          // the same command again is now a no-op or a refusal, never another event (idempotent retries)
          if (e.type !== 'TensionDiscarded' && e.type !== 'TensionSensed') expect(isAppend(decide(command, state))).toBe(false);
        }
      }
      // the fold of the whole stream equals the state reached step by step
      expect(foldPast(history).state).toEqual(state);
    });
  }
});

describe('evolve never throws', () => {
  it('ignores events before a sensing and unknown event types', () => {
    expect(evolve(null, { type: 'TensionRenamed', data: { name: 'a', previousName: 'b' }, version: 1, occurredAt: T0 })).toBeNull();
    const alive = inState.alive()!;
    expect(evolve(alive, { type: 'Nonsense', data: {}, version: 2, occurredAt: T0 } as unknown as RecordedTensionEvent)).toEqual(alive);
  });
});

describe('history summaries (SPEC §4)', () => {
  const cases: [TensionEvent, string, string, Record<string, unknown>][] = [
    [sensed, 'Tension sensed', 'history.sensed', { name: 'Supply gap' }],
    [{ type: 'TensionRenamed', data: { name: 'B', previousName: 'A' } }, 'Renamed from "A" to "B"', 'history.renamed', { from: 'A', to: 'B' }],
    [{ type: 'TensionRescored', data: { score: 8, previousScore: 5 } }, 'Score raised from 5 to 8', 'history.rescored.raised', { from: 5, to: 8 }],
    [{ type: 'TensionRescored', data: { score: 5, previousScore: 8 } }, 'Score lowered from 8 to 5', 'history.rescored.lowered', { from: 8, to: 5 }],
    [
      { type: 'TensionContextRevised', data: { currentContext: 'x', previousCurrentContext: null } },
      'Revised current context',
      'history.contextRevised.current',
      {},
    ],
    [
      { type: 'TensionContextRevised', data: { potentialFuture: 'x', previousPotentialFuture: null } },
      'Revised potential future',
      'history.contextRevised.future',
      {},
    ],
    [
      { type: 'TensionContextRevised', data: { currentContext: null, previousCurrentContext: 'a', potentialFuture: 'x', previousPotentialFuture: null } },
      'Revised current context and potential future',
      'history.contextRevised.both',
      {},
    ],
    [
      { type: 'TensionLeadAssigned', data: { leadUserId: LEAD, leadName: 'Alice', previousLeadUserId: null, previousLeadName: null } },
      'Lead assigned to Alice',
      'history.leadAssigned',
      { leadUserId: LEAD, leadName: 'Alice' },
    ],
    [{ type: 'TensionLeadUnassigned', data: { previousLeadUserId: LEAD } }, 'Lead unassigned', 'history.leadUnassigned', {}],
    [
      { type: 'TensionReassigned', data: { actorId: ACTOR2, actorName: 'Org B', previousActorId: ACTOR, previousActorName: 'Org A' } },
      'Reassigned from Org A to Org B',
      'history.reassigned',
      { fromActorId: ACTOR, fromActorName: 'Org A', toActorId: ACTOR2, toActorName: 'Org B' },
    ],
    [{ type: 'TensionResolved', data: {} }, 'Resolved', 'history.resolved', {}],
    [{ type: 'TensionDropped', data: {} }, 'Dropped as stale', 'history.dropped', {}],
    [{ type: 'TensionReopened', data: {} }, 'Reopened', 'history.reopened', {}],
    [{ type: 'TensionRevived', data: {} }, 'Revived', 'history.revived', {}],
    [{ type: 'TensionDiscarded', data: {} }, 'Discarded', 'history.discarded', {}],
  ];
  for (const [event, summary, summaryKey, summaryParams] of cases) {
    it(`${event.type} → ${summary}`, () => {
      expect(summarize(event)).toEqual({ summary, summaryKey, summaryParams });
    });
  }
});

describe('allowedCommands', () => {
  const EDITS = ['rename', 'rescore', 'revise', 'lead', 'reassign'];
  it.each([
    ['alive', [...EDITS, 'resolve', 'drop', 'discard']],
    ['resolved', [...EDITS, 'reopen', 'discard']],
    ['stale', [...EDITS, 'revive', 'discard']],
  ] as const)('a %s tension: the edits, the moves out of it and discard', (state, expected) => {
    expect(allowedCommands(inState[state]()!)).toEqual(expected);
  });

  it('a score of 10 may still be rescored, a led tension may lose its lead', () => {
    const led = given(
      sensed,
      { type: 'TensionRescored', data: { score: 10, previousScore: 5 } },
      { type: 'TensionLeadAssigned', data: { leadUserId: LEAD, leadName: 'L', previousLeadUserId: null, previousLeadName: null } },
    )!;
    expect(allowedCommands(led)).toContain('rescore');
    expect(allowedCommands(led)).toContain('lead');
  });
});
