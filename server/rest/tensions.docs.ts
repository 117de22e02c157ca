// OpenAPI descriptions of the tension and actor routes, built from the use cases' own schemas.
import {
  commandResultOutput, historyPageOutput, historyQuery, lifecycleInput, listTensionsQuery, reassignTensionInput,
  renameTensionInput, rescoreTensionInput, reviseTensionContextInput, senseTensionInput, setTensionLeadInput,
  tensionOutput, tensionPageOutput,
} from '../application/tensions/tension.inputs.js';
import { actorOutput, actorPageOutput, createActorInput, listActorsQuery, updateActorInput } from '../application/actors/actor.inputs.js';
import type { RouteDoc } from './openapi.js';

const command = (path: string, summary: string, operation: RouteDoc['operation'], body: RouteDoc['body'], errors: RouteDoc['errors'] = []): RouteDoc => ({
  method: 'post', path, summary, tag: 'tensions', operation, body, response: commandResultOutput, status: 200,
  errors: ['version_conflict', ...errors],
});

export const TENSION_ROUTE_DOCS: RouteDoc[] = [
  { method: 'get', path: '/tensions', summary: 'List tensions (filters, sort, cursor paging)', tag: 'tensions', operation: 'tensions.list', query: listTensionsQuery, response: tensionPageOutput, status: 200 },
  { method: 'post', path: '/tensions', summary: 'Sense a tension', tag: 'tensions', operation: 'tensions.sense', body: senseTensionInput, response: commandResultOutput, status: 201, errors: ['actor_not_found', 'user_not_found', 'not_applicable'] },
  { method: 'get', path: '/tensions/:id', summary: 'Get a tension', tag: 'tensions', operation: 'tensions.get', response: tensionOutput, status: 200 },
  { method: 'get', path: '/tensions/:id/history', summary: 'The tension history, newest first', tag: 'tensions', operation: 'tensions.history', query: historyQuery, response: historyPageOutput, status: 200 },
  command('/tensions/:id/rename', 'Rename', 'tensions.rename', renameTensionInput),
  command('/tensions/:id/rescore', 'Rescore (1-10)', 'tensions.rescore', rescoreTensionInput),
  command('/tensions/:id/revise', 'Revise current context and/or potential future', 'tensions.revise', reviseTensionContextInput),
  command('/tensions/:id/lead', 'Assign or unassign the lead user', 'tensions.lead', setTensionLeadInput, ['user_not_found', 'not_applicable']),
  command('/tensions/:id/reassign', 'Move to another actor', 'tensions.reassign', reassignTensionInput, ['actor_not_found']),
  command('/tensions/:id/resolve', 'alive → resolved', 'tensions.resolve', lifecycleInput, ['invalid_transition']),
  command('/tensions/:id/drop', 'alive → stale', 'tensions.drop', lifecycleInput, ['invalid_transition']),
  command('/tensions/:id/reopen', 'resolved → alive', 'tensions.reopen', lifecycleInput, ['invalid_transition']),
  command('/tensions/:id/revive', 'stale → alive', 'tensions.revive', lifecycleInput, ['invalid_transition']),
  { method: 'delete', path: '/tensions/:id', summary: 'Discard (history stays readable); `?expectedVersion=N`', tag: 'tensions', operation: 'tensions.discard', status: 204, errors: ['version_conflict'] },
  { method: 'get', path: '/actors', summary: 'List actors', tag: 'actors', operation: 'actors.list', query: listActorsQuery, response: actorPageOutput, status: 200 },
  { method: 'post', path: '/actors', summary: 'Create an actor', tag: 'actors', operation: 'actors.create', body: createActorInput, response: actorOutput, status: 201 },
  { method: 'get', path: '/actors/:id', summary: 'Get an actor', tag: 'actors', operation: 'actors.get', response: actorOutput, status: 200 },
  { method: 'patch', path: '/actors/:id', summary: 'Rename an actor', tag: 'actors', operation: 'actors.update', body: updateActorInput, response: actorOutput, status: 200 },
  { method: 'delete', path: '/actors/:id', summary: 'Delete an actor, discarding its tensions (one transaction)', tag: 'actors', operation: 'actors.delete', status: 204 },
];
