// Zod schemas of every tension input and output: REST, GraphQL, MCP and the OpenAPI document reuse them.
import { z } from 'zod';
import { cursorParam } from '../paging.js';
import { codePoints, nameSchema } from '../schemas.js';

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
export const uuid = z.uuid({ message: 'must be a UUID' });
export const expectedVersion = z
  .number()
  .int()
  .min(0)
  .max(2_147_483_647)
  .nullish()
  .transform((v) => v ?? undefined)
  .describe('Refuse with version_conflict, writing nothing, unless the tension is at this version (the version you last read).');

/**
 * An integer from a query string ("20") or a GraphQL Int / MCP number (20). The bounds are checked once,
 * after the union (so 0 is `too_small`, not a union failure); `.meta` shows them on the number branch too,
 * so the OpenAPI parameter and the MCP input schema state them.
 */
export const intParam = (min: number, max: number) =>
  z
    .union([z.number().meta({ type: 'integer', minimum: min, maximum: max }), z.string().max(10).regex(/^\d+$/, 'must be an integer').transform(Number)])
    .pipe(z.number().int().min(min).max(max));

/** The paging parameters of every list (SPEC §5): described once, for REST, MCP and the OpenAPI document. */
export const pageLimit = intParam(1, 100).default(20).describe('How many items per page, 1-100 (default 20).');
export const pageCursor = cursorParam.optional().describe('The nextCursor of the previous page, as given; omit it for the first page.');

const currentContext = tensionText.optional().describe('The current state as the actor experiences it, at most 10000 characters; null clears it.');
const potentialFuture = tensionText.optional().describe('The desired future, at most 10000 characters; null clears it.');

export const senseTensionInput = z.strictObject({
  name: tensionName.describe('A short name, 1-200 characters (trimmed).'),
  actorId: uuid.describe('The actor who experiences the tension (a UUID, from the actors list).'),
  currentContext,
  potentialFuture,
  score: tensionScore.optional().describe('How strongly it is felt, an integer 1-10; 5 when omitted.'),
  leadUserId: uuid.nullable().optional().describe('The user who leads it (a UUID of an active user); omitted or null: no lead.'),
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
  leadUserId: uuid.nullable().describe('The new lead (a UUID of an active user), or null to unassign the lead. Required.'),
  expectedVersion,
});
export const reassignTensionInput = z.strictObject({ actorId: uuid.describe('The actor the tension moves to (a UUID).'), expectedVersion });
/** resolve, drop, reopen, revive and discard: no fields but the optional expectedVersion */
export const lifecycleInput = z.strictObject({ expectedVersion });

export const TENSION_SORTS = ['score', '-score', 'updatedAt', '-updatedAt', 'createdAt', '-createdAt', 'name', '-name'] as const;

export const listTensionsQuery = z.strictObject({
  state: z.enum(['alive', 'resolved', 'stale']).optional().describe('Only tensions in this state.'),
  actorId: uuid.optional().describe('Only the tensions of this actor (a UUID).'),
  leadUserId: uuid.optional().describe('Only the tensions this user leads (a UUID).'),
  q: z.string().max(200).optional().describe('Text to find in the name, current context or potential future (case-insensitive), at most 200 characters.'),
  minScore: intParam(1, 10).optional().describe('Only tensions scored at least this, 1-10.'),
  sort: z.enum(TENSION_SORTS).default('-score').describe('The order: score, updatedAt, createdAt or name; a leading "-" for descending (default -score).'),
  limit: pageLimit,
  cursor: pageCursor,
});

export const historyQuery = z.strictObject({
  limit: pageLimit,
  cursor: pageCursor,
});

export const rebuildInput = z.strictObject({ dryRun: z.boolean().default(false) });


// ---- outputs -------------------------------------------------------------------------------

const ref = z.object({ id: z.string(), name: z.string(), type: z.string() });

export const tensionOutput = z.object({
  id: z.string(),
  name: z.string(),
  currentContext: z.string().nullable(),
  potentialFuture: z.string().nullable(),
  score: z.number().int(),
  state: z.enum(['alive', 'resolved', 'stale']),
  actorId: z.string(),
  actor: ref,
  leadUserId: z.string().nullable(),
  lead: ref.nullable(),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const historyEntryOutput = z.object({
  version: z.number().int(),
  type: z.string(),
  occurredAt: z.string(),
  by: z.object({
    kind: z.enum(['human', 'agent', 'system']),
    userId: z.string().nullable(),
    userName: z.string().nullable(),
    apiKeyName: z.string().nullable(),
    via: z.enum(['graphql', 'rest', 'mcp', 'cli']),
  }),
  summary: z.string(),
  summaryKey: z.string(),
  summaryParams: z.record(z.string(), z.unknown()),
  data: z.record(z.string(), z.unknown()),
});

export const commandResultOutput = z.object({ tension: tensionOutput.nullable(), event: historyEntryOutput.nullable() });
/** sense always creates: its answer has both */
export const senseResultOutput = z.object({ tension: tensionOutput, event: historyEntryOutput });
export const tensionPageOutput = z.object({ data: z.array(tensionOutput), nextCursor: z.string().nullable() });
export const historyPageOutput = z.object({ data: z.array(historyEntryOutput), nextCursor: z.string().nullable() });
export const rebuildReportOutput = z.object({
  streams: z.number().int(),
  events: z.number().int(),
  inserted: z.number().int(),
  updated: z.number().int(),
  deleted: z.number().int(),
  unchanged: z.number().int(),
  durationMs: z.number(),
  dryRun: z.boolean(),
});

export type TensionView = z.infer<typeof tensionOutput>;
export type HistoryEntry = z.infer<typeof historyEntryOutput>;
export type CommandResult = z.infer<typeof commandResultOutput>;
export type TensionPage = z.infer<typeof tensionPageOutput>;
export type HistoryPage = z.infer<typeof historyPageOutput>;
export type RebuildReport = z.infer<typeof rebuildReportOutput>;
