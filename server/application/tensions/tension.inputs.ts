// Zod schemas of every tension input and output: REST, GraphQL, MCP and the OpenAPI document reuse them.
import { z } from 'zod';
import { cursorSchema, pageLimit, pageOutput } from '../paging.js';
import { codePoints, intParam, nameSchema, uuidSchema } from '../schemas.js';
import { expectedVersionOf } from '../versions.js';

// Every property of a command input says what it is and carries the contract's bounds (SPEC §3, §8):
// the OpenAPI document, the GraphQL inputs and the MCP tool schemas are generated from these.
// `.meta` states bounds that a refinement checks (JSON Schema counts code points, as the refinement does).

export const tensionName = nameSchema;

export const tensionText = z
  .string()
  .refine((s) => codePoints(s) <= 10_000, 'must be at most 10000 characters')
  .meta({ maxLength: 10_000 })
  .nullable();

export const tensionScore = z.number().int().min(1).max(10);
export const expectedVersion = expectedVersionOf('tension');

const currentContext = tensionText.optional().describe('The current state as the actor experiences it, at most 10000 characters; null clears it.');
const potentialFuture = tensionText.optional().describe('The desired future, at most 10000 characters; null clears it.');

export const senseTensionInput = z.strictObject({
  name: tensionName.describe('A short name, 1-200 characters (trimmed).'),
  actorId: uuidSchema.describe('The actor who experiences the tension (a UUID, from the actors list).'),
  currentContext,
  potentialFuture,
  score: tensionScore.optional().describe('How strongly it is felt, an integer 1-10; 5 when omitted.'),
  leadUserId: uuidSchema.nullable().optional().describe('The user who leads it (a UUID of an active user); omitted or null: no lead.'),
});
export const renameTensionInput = z.strictObject({ name: tensionName.describe('The new name, 1-200 characters (trimmed).'), expectedVersion });
export const rescoreTensionInput = z.strictObject({ score: tensionScore.describe('The new score, an integer 1-10.'), expectedVersion });
export const reviseTensionContextInput = z
  .strictObject({ currentContext, potentialFuture, expectedVersion })
  .refine((v) => v.currentContext !== undefined || v.potentialFuture !== undefined, {
    message: 'give currentContext, potentialFuture or both',
    path: ['currentContext'],
  });
export const setTensionLeadInput = z.strictObject({
  leadUserId: uuidSchema.nullable().describe('The new lead (a UUID of an active user), or null to unassign the lead. Required.'),
  expectedVersion,
});
export const reassignTensionInput = z.strictObject({ actorId: uuidSchema.describe('The actor the tension moves to (a UUID).'), expectedVersion });
/** resolve, drop, reopen, revive and discard: no fields but the optional expectedVersion */
export const lifecycleInput = z.strictObject({ expectedVersion });

export const TENSION_SORTS = [
  'score',
  '-score',
  'updatedAt',
  '-updatedAt',
  'createdAt',
  '-createdAt',
  'name',
  '-name',
  'state',
  '-state',
  'actor',
  '-actor',
  'lead',
  '-lead',
] as const;
export const TENSION_STATES = ['alive', 'resolved', 'stale'] as const;

export const listTensionsQuery = z.strictObject({
  state: z.enum(TENSION_STATES).optional().describe('Only tensions in this state.'),
  actorId: uuidSchema.optional().describe('Only the tensions of this actor (a UUID).'),
  leadUserId: uuidSchema.optional().describe('Only the tensions this user leads (a UUID).'),
  q: z.string().max(200).optional().describe('Text to find in the name, current context or potential future (case-insensitive), at most 200 characters.'),
  minScore: intParam(1, 10).optional().describe('Only tensions scored at least this, 1-10.'),
  sort: z
    .enum(TENSION_SORTS)
    .default('-score')
    .describe(
      'The order: score, updatedAt, createdAt, name, state, actor or lead; a leading "-" for descending (default -score). ' +
        'state: alive, resolved, stale (-state: the other way round), within a state the strongest first; actor and lead: by the name, ' +
        'case-insensitively, then id; tensions without a lead come last either way.',
    ),
  limit: pageLimit,
  cursor: cursorSchema,
});

export const historyQuery = z.strictObject({ limit: pageLimit, cursor: cursorSchema });

// ---- reading the past (SPEC §15) ----

/** the largest version these parameters take: more than any stream will hold, and a bound the OpenAPI pattern can state */
const VERSION_MAX = 999_999_999;
/** A moment: ISO 8601 with a UTC offset or Z (GraphQL's DateTime arrives as a Date). */
const instant = z.preprocess((v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? v.toISOString() : v), z.iso.datetime({ offset: true }));

/**
 * `GET /tensions/:id`'s optional past: at most one of the two. Not strict, as that read never was: a
 * parameter it does not know (a cache buster) is ignored.
 */
export const asOfQuery = z
  .object({
    asOfVersion: intParam(1, VERSION_MAX).optional().describe('Read the tension as it was at this version of its stream (1 = as sensed).'),
    asOf: instant
      .optional()
      .describe('Read the tension as it was at this moment (ISO 8601 with offset, e.g. 2026-11-25T09:00:00Z): the last version recorded at or before it.'),
  })
  .superRefine((v, c) => {
    if (v.asOfVersion !== undefined && v.asOf !== undefined) c.addIssue({ code: 'custom', path: ['asOf'], message: 'give asOfVersion or asOf, not both' });
  });

export const changesQuery = z
  .strictObject({
    from: intParam(1, VERSION_MAX).describe('The version to compare from (1 = as sensed).'),
    to: intParam(1, VERSION_MAX)
      .optional()
      .describe('The version to compare to, at least `from`; by default the current version (of a discarded tension: the last before its discard).'),
  })
  .superRefine((v, c) => {
    if (v.to !== undefined && v.to < v.from) c.addIssue({ code: 'custom', path: ['to'], message: 'must not be before from' });
  });

export const rebuildInput = z.strictObject({ dryRun: z.boolean().default(false) });

// ---- outputs -------------------------------------------------------------------------------

const ref = (what: string) =>
  z.object({
    id: z.string().describe(`The ${what}'s id.`),
    name: z.string().describe(`The ${what}'s name.`),
    type: z.string().describe(`The ${what}'s type.`),
  });

export const tensionOutput = z
  .object({
    id: z.string().describe('The tension id (a UUID).'),
    name: z.string().describe('A short name, 1-200 characters.'),
    currentContext: z.string().nullable().describe('The current state as the actor experiences it; null when not given.'),
    potentialFuture: z.string().nullable().describe('The desired future; null when not given.'),
    score: z.number().int().describe('How strongly it is felt, 1-10.'),
    state: z.enum(TENSION_STATES).describe('alive, resolved or stale: resolve and drop leave alive, reopen and revive come back.'),
    actorId: z.string().describe('The actor who experiences it.'),
    actor: ref('actor').describe('That actor, for display.'),
    leadUserId: z.string().nullable().describe('The user who leads it; null: no lead.'),
    lead: ref('lead user').nullable().describe('That user, for display; null: no lead.'),
    version: z.number().int().describe('Its version, one more with every change: send it back as expectedVersion to write only over what you read.'),
    createdAt: z.string().describe('When it was sensed (ISO 8601).'),
    updatedAt: z.string().describe('When it last changed (ISO 8601).'),
  })
  .describe('A gap between the current state and a desired future, experienced by an actor (SPEC §2).');

export const asOfOutput = z
  .object({
    version: z.number().int().describe('The version read.'),
    occurredAt: z.string().describe('When that version was recorded (ISO 8601).'),
  })
  .describe('Which point of the stream this is; present only on a read of the past.');

export const pastTensionOutput = tensionOutput
  .extend({ asOf: asOfOutput })
  .describe(
    'The tension as it was at a version of its stream, folded from its events. `actor.name` and `lead.name` are the names its events ' +
      'recorded then (a later rename does not change the past); `type` is the actor’s or user’s type, which never changes, or `deleted` ' +
      'for an actor deleted since.',
  );

/** Either read of `GET /tensions/:id`: now, or (with asOfVersion / asOf) the past with its `asOf`. */
export const tensionReadOutput = tensionOutput.extend({ asOf: asOfOutput.optional() }).describe(tensionOutput.description ?? '');

export const CHANGE_FIELDS = ['name', 'currentContext', 'potentialFuture', 'score', 'state', 'actor', 'lead'] as const;

export const tensionChangesOutput = z
  .object({
    from: z.number().int().describe('The version compared from.'),
    to: z.number().int().describe('The version compared to.'),
    changes: z
      .array(
        z.object({
          field: z.enum(CHANGE_FIELDS).describe('The field of the tension that differs.'),
          from: z.unknown().describe('Its value at `from` (actor and lead: {id, name, type} as recorded then, lead null for none).'),
          to: z.unknown().describe('Its value at `to`.'),
        }),
      )
      .describe('Every field whose value differs between the two versions, in the order of the read shape; a field changed and changed back is not listed.'),
  })
  .describe('What changed in a tension between two versions.');

export const historyEntryOutput = z
  .object({
    version: z.number().int().describe('The version this event made.'),
    type: z.string().describe('The event type, e.g. `TensionRenamed`.'),
    occurredAt: z.string().describe('When (ISO 8601).'),
    by: z
      .object({
        kind: z.enum(['human', 'agent', 'system']).describe('A human (session or key), an agent (key), or the system (CLI, migrations).'),
        userId: z.string().nullable().describe('The acting user; null for the system.'),
        userName: z.string().nullable().describe("The acting user's name at the time; null for the system."),
        apiKeyName: z.string().nullable().describe('The name of the API key used; null when none was.'),
        via: z.enum(['graphql', 'rest', 'mcp', 'cli']).describe('The face the change came through.'),
      })
      .describe('Who made the change, and how.'),
    summary: z.string().describe('A one-line English summary, e.g. `Renamed from "A" to "B"`.'),
    summaryKey: z.string().describe('The i18n key of the summary, to say it in another language.'),
    summaryParams: z.record(z.string(), z.unknown()).describe("The summary's parameters, for summaryKey."),
    data: z.record(z.string(), z.unknown()).describe('The event data (SPEC §3).'),
  })
  .describe('One change of a tension, as its history shows it.');

export const commandResultOutput = z
  .object({
    tension: tensionOutput.nullable().describe('The tension after the command; null after discard.'),
    event: historyEntryOutput.nullable().describe('The change it made; null when the command changed nothing (the same name, score, state …).'),
  })
  .describe('The answer of a tension command.');
/** sense always creates: its answer has both */
export const senseResultOutput = z
  .object({
    tension: tensionOutput.describe('The new tension, alive at version 1.'),
    event: historyEntryOutput.describe('Its TensionSensed event.'),
  })
  .describe('The answer of sense: always a new tension and its first event.');
export const tensionPageOutput = pageOutput(tensionOutput, 'tensions');
export const historyPageOutput = pageOutput(historyEntryOutput, 'the history, newest first');
export const rebuildReportOutput = z.object({
  streams: z.number().int().describe('Tension streams replayed.'),
  events: z.number().int().describe('Events replayed.'),
  inserted: z.number().int().describe('Projection rows that were missing and were (or, in a dry run, would be) inserted.'),
  updated: z.number().int().describe('Projection rows that differed from their stream and were (would be) corrected.'),
  deleted: z.number().int().describe('Projection rows without a live stream (discarded tensions) that were (would be) removed.'),
  unchanged: z.number().int().describe('Projection rows that already matched their stream.'),
  durationMs: z.number().describe('How long the rebuild took, in milliseconds.'),
  dryRun: z.boolean().describe('True when nothing was changed, only reported.'),
});

export type TensionView = z.infer<typeof tensionOutput>;
export type PastTensionView = z.infer<typeof pastTensionOutput>;
export type TensionChanges = z.infer<typeof tensionChangesOutput>;
export type HistoryEntry = z.infer<typeof historyEntryOutput>;
export type CommandResult = z.infer<typeof commandResultOutput>;
export type TensionPage = z.infer<typeof tensionPageOutput>;
export type HistoryPage = z.infer<typeof historyPageOutput>;
export type RebuildReport = z.infer<typeof rebuildReportOutput>;
