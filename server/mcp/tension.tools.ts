// MCP tools over the tension use cases: the same functions REST and GraphQL call. The command tools are
// generated from the command registry; the actor tools from the operation registry (operations.tools.ts).
import { z } from 'zod';
import {
  asOfQuery,
  changesQuery,
  commandResultOutput,
  historyPageOutput,
  historyQuery,
  listTensionsQuery,
  senseResultOutput,
  tensionChangesOutput,
  tensionPageOutput,
  tensionReadOutput,
} from '../application/tensions/tension.inputs.js';
import {
  getTension,
  getTensionChanges,
  getTensionHistory,
  listTensions,
  runCommand,
  TENSION_COMMANDS,
  type TensionCommandEntry,
} from '../application/tensions/index.js';
import { defineTool, type ToolDef } from './tool.js';

/**
 * The id a tool acts on is a string here, as in a REST path: the use case reads it, so an id that is not a
 * UUID is not_found on every face (a missing or non-string id still fails the schema: validation_failed).
 */
const id = z.string().min(1).max(100).describe('The tension id (a UUID). An id that is not a UUID, or of a discarded tension, is not_found.');
const READ = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;
const CONFLICT_HELP =
  'Pass expectedVersion (the tension.version you last saw) to make the write conditional: if someone else changed the tension, ' +
  'the result is an error with code version_conflict and currentVersion; reload with get_tension, decide again, retry.';

/**
 * A command's tool: its REST body's fields plus `id`. The arguments go to the use case as given (it
 * validates them); the server has checked the id, as REST's router reads a path.
 */
function commandTool(entry: TensionCommandEntry): ToolDef {
  const shape = (entry.input as z.ZodObject).shape;
  return defineTool({
    name: entry.mcp.name,
    title: entry.mcp.title,
    description: entry.creates
      ? entry.mcp.description
      : `${entry.mcp.description} Returns {tension, event}; event is null when nothing changed (then nothing was written). ${CONFLICT_HELP}`,
    operation: entry.operation,
    input: entry.creates ? z.strictObject(shape) : z.strictObject({ id, ...shape }),
    rawArguments: true,
    output: entry.creates ? senseResultOutput : commandResultOutput,
    annotations: { readOnlyHint: false, ...entry.mcp.annotations, openWorldHint: false },
    idempotent: true,
    run: (deps, ctx, args) => {
      if (entry.creates) return runCommand(deps, ctx, entry, null, args);
      const { id: tensionId, ...input } = args as Record<string, unknown>;
      return runCommand(deps, ctx, entry, String(tensionId), input);
    },
  });
}

export const TENSION_TOOLS: ToolDef[] = [
  defineTool({
    name: 'list_tensions',
    title: 'List tensions',
    description:
      'Lists tensions, highest score first by default. Filters: state (alive|resolved|stale), actorId, leadUserId, q (case-insensitive ' +
      'text in name and contexts), minScore (1-10). sort: score|updatedAt|createdAt|name|state|actor|lead, prefix "-" for descending (lead: no lead last either way). Pages: limit (1-100, ' +
      'default 20) and cursor (pass back nextCursor; null means the last page). A q of one or two characters reads part of the list a ' +
      'page: a page may hold fewer than limit, even none, while nextCursor is not null.',
    operation: 'tensions.list',
    input: listTensionsQuery,
    rawArguments: true,
    output: tensionPageOutput,
    annotations: READ,
    run: (deps, ctx, args) => listTensions(deps, ctx, args),
  }),
  defineTool({
    name: 'get_tension',
    title: 'Get a tension',
    description:
      'Returns one tension with its actor, lead and version. With asOfVersion (a version of its stream) or asOf (an ISO 8601 time), ' +
      'not both: the tension as it was then, with asOf {version, occurredAt} and the actor and lead names recorded then. ' +
      'Error not_found: no such tension, discarded, or (reading the past) not sensed yet or already discarded then.',
    operation: 'tensions.get',
    input: z.strictObject({ id, ...asOfQuery.shape }),
    rawArguments: true,
    output: tensionReadOutput,
    annotations: READ,
    run: (deps, ctx, args) => {
      const { id: tensionId, ...past } = args as Record<string, unknown>;
      return getTension(deps, ctx, String(tensionId), past);
    },
  }),
  defineTool({
    name: 'get_tension_changes',
    title: 'Compare two versions of a tension',
    description:
      'Returns every field (name, currentContext, potentialFuture, score, state, actor, lead) whose value differs between version from ' +
      'and version to (default: the current version) of a tension, with its value at each. Versions come from get_tension_history. ' +
      'Error not_found: no such tension, or it did not exist at one of the versions.',
    operation: 'tensions.changes',
    input: z.strictObject({ id, ...changesQuery.shape }),
    rawArguments: true,
    output: tensionChangesOutput,
    annotations: READ,
    run: (deps, ctx, args) => {
      const { id: tensionId, ...versions } = args as Record<string, unknown>;
      return getTensionChanges(deps, ctx, String(tensionId), versions);
    },
  }),
  defineTool({
    name: 'get_tension_history',
    title: 'Get tension history',
    description:
      'Returns what happened to a tension, newest first: each entry has version, type, occurredAt, who did it (by: kind, userName, via), ' +
      'an English summary and its summaryKey/summaryParams. Readable after discard. Pages with limit (1-100) and cursor.',
    operation: 'tensions.history',
    input: z.strictObject({ id, ...historyQuery.shape }),
    rawArguments: true,
    output: historyPageOutput,
    annotations: READ,
    run: (deps, ctx, args) => {
      const { id: tensionId, ...query } = args as Record<string, unknown>;
      return getTensionHistory(deps, ctx, String(tensionId), query);
    },
  }),
  ...TENSION_COMMANDS.map(commandTool),
];
