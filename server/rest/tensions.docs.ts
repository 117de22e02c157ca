// OpenAPI descriptions of the tension and actor routes, built from the use cases' own schemas; the
// tension commands' operations are generated from the command registry.
import {
  commandResultOutput, historyPageOutput, historyQuery, listTensionsQuery, senseResultOutput, tensionOutput, tensionPageOutput,
} from '../application/tensions/tension.inputs.js';
import { TENSION_COMMANDS, type TensionCommandEntry } from '../application/tensions/registry.js';
import { actorOutput, actorPageOutput, createActorInput, listActorsQuery, updateActorInput } from '../application/actors/actor.inputs.js';
import type { RouteDoc } from './openapi.js';

const TENSION_ID = { id: 'The tension id (a UUID); an id that is not a UUID, or of a discarded tension, is 404 not_found.' };

function commandDoc(entry: TensionCommandEntry): RouteDoc {
  const { method, path, status, summary, input } = entry.rest;
  return {
    method, path, summary, tag: 'tensions', operation: entry.operation, status,
    ...(entry.creates ? {} : { pathParams: TENSION_ID }),
    ...(input === 'query'
      ? { query: entry.input as RouteDoc['query'] }
      : { body: entry.input, bodyRequired: !entry.input.safeParse({}).success }),
    ...(status === 204 ? {} : { response: entry.creates ? senseResultOutput : commandResultOutput }),
    errors: entry.errors,
  };
}

export const TENSION_ROUTE_DOCS: RouteDoc[] = [
  { method: 'get', path: '/tensions', summary: 'List tensions (filters, sort, cursor paging)', tag: 'tensions', operation: 'tensions.list', query: listTensionsQuery, response: tensionPageOutput, status: 200 },
  { method: 'get', path: '/tensions/:id', summary: 'Get a tension', tag: 'tensions', operation: 'tensions.get', pathParams: TENSION_ID, response: tensionOutput, status: 200 },
  { method: 'get', path: '/tensions/:id/history', summary: 'The tension history, newest first', tag: 'tensions', operation: 'tensions.history', pathParams: TENSION_ID, query: historyQuery, response: historyPageOutput, status: 200 },
  ...TENSION_COMMANDS.map(commandDoc),
  { method: 'get', path: '/actors', summary: 'List actors', tag: 'actors', operation: 'actors.list', query: listActorsQuery, response: actorPageOutput, status: 200 },
  { method: 'post', path: '/actors', summary: 'Create an actor', tag: 'actors', operation: 'actors.create', body: createActorInput, response: actorOutput, status: 201 },
  { method: 'get', path: '/actors/:id', summary: 'Get an actor', tag: 'actors', operation: 'actors.get', response: actorOutput, status: 200 },
  { method: 'patch', path: '/actors/:id', summary: 'Rename an actor', tag: 'actors', operation: 'actors.update', body: updateActorInput, response: actorOutput, status: 200, errors: ['actor_not_found', 'version_conflict'] },
  { method: 'delete', path: '/actors/:id', summary: 'Delete an actor, discarding its tensions (one transaction)', tag: 'actors', operation: 'actors.delete', status: 204 },
];
