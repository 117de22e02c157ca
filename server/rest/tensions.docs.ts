// OpenAPI descriptions of the tension routes, built from the use cases' own schemas; the tension
// commands' operations are generated from the command registry (the actors' from the operation registry).
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
import { TENSION_COMMANDS, type TensionCommandEntry } from '../application/tensions/registry.js';
import type { RouteDoc } from './openapi.js';

const TENSION_ID = { id: 'The tension id (a UUID); an id that is not a UUID, or of a discarded tension, is 404 not_found.' };

function commandDoc(entry: TensionCommandEntry): RouteDoc {
  const { method, path, status, summary, description, input } = entry.rest;
  return {
    method,
    path,
    summary,
    description,
    tag: 'tensions',
    operation: entry.operation,
    status,
    // the GraphQL mutation's name: one name per command on every face
    operationId: entry.graphql.field,
    ...(entry.creates ? {} : { pathParams: TENSION_ID }),
    ...(input === 'query' ? { query: entry.input as RouteDoc['query'] } : { body: entry.input, bodyRequired: !entry.input.safeParse({}).success }),
    ...(status === 204 ? {} : { response: entry.creates ? senseResultOutput : commandResultOutput }),
    errors: entry.errors,
  };
}

export const TENSION_ROUTE_DOCS: RouteDoc[] = [
  {
    method: 'get',
    path: '/tensions',
    summary: 'List tensions',
    tag: 'tensions',
    operation: 'tensions.list',
    query: listTensionsQuery,
    response: tensionPageOutput,
    status: 200,
    description:
      "Tensions that are not discarded, filtered and sorted, a page at a time: pass the answer's `nextCursor` as `cursor` until it is null. A `q` of one or two characters (no run of three letters or digits) reads at most 100,000 tensions a page, so its page may hold fewer than `limit`, even none, while `nextCursor` is not null. A bad filter, sort or cursor is 400.",
  },
  {
    method: 'get',
    path: '/tensions/:id',
    summary: 'Get a tension, now or as it was',
    tag: 'tensions',
    operation: 'tensions.get',
    pathParams: TENSION_ID,
    query: asOfQuery,
    response: tensionReadOutput,
    status: 200,
    description:
      'One tension as it is now. Its `version` is what to send as `expectedVersion` with the next command. ' +
      'With `asOfVersion` or `asOf` (not both), the tension as it was then, folded from its stream, with `asOf: {version, occurredAt}`; ' +
      'a discarded tension can be read as of any version before its discard. 404 not_found when it had not been sensed yet then, ' +
      'had been discarded by then, or has no such version.',
  },
  {
    method: 'get',
    path: '/tensions/:id/changes',
    summary: 'What changed between two versions',
    tag: 'tensions',
    operation: 'tensions.changes',
    operationId: 'getTensionChanges',
    pathParams: { id: 'The tension id (a UUID); a discarded tension can be compared up to the version before its discard.' },
    query: changesQuery,
    response: tensionChangesOutput,
    status: 200,
    description:
      'Every field (name, currentContext, potentialFuture, score, state, actor, lead) whose value differs between version `from` and version `to`, ' +
      'with its value at each; a field changed and changed back is not listed. 404 not_found when the tension did not exist at one of them.',
  },
  {
    method: 'get',
    path: '/tensions/:id/history',
    summary: 'The history of a tension',
    tag: 'tensions',
    operation: 'tensions.history',
    operationId: 'getTensionHistory',
    pathParams: { id: 'The tension id (a UUID); a discarded tension keeps its history.' },
    query: historyQuery,
    response: historyPageOutput,
    status: 200,
    description: 'Every change of the tension, newest first, with who made it and through which face; also after it was discarded.',
  },
  ...TENSION_COMMANDS.map(commandDoc),
];
